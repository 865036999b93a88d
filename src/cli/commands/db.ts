/** `a2a db`: storage maintenance (schema migrations, retention) without serving. */
import { parseArgs } from 'node:util';
import { migrateStore, openStore } from '../../stores/contract/openStore.js';
import { withStore } from '../storeFailure.js';
import { UsageError } from './serve.js';

export const dbHelp = `Usage: a2a db <migrate|purge> [options]

  migrate             apply pending schema migrations (a2a serve also applies them on start)
  purge               delete finished tasks (completed, failed, canceled, rejected) older than
                      --older-than-days, with their event logs

Options:
  --store SPEC        sqlite (default: ./.a2a/tasks.db), sqlite:PATH, or postgres://…[?schema=a2a];
                      a SQLite file must exist (exit 2 otherwise): a2a db never creates one
  --older-than-days N (purge) age of the last status change
  --json              print the result as one JSON line
  -h, --help          show this help

Examples:
  a2a db migrate
  a2a db migrate --store postgres://a2a@db.internal/agents
  a2a db purge --store sqlite:/var/lib/a2a/tasks.db --older-than-days 30
`;

export async function dbCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      store: { type: 'string', default: 'sqlite' },
      'older-than-days': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(dbHelp);
    return 0;
  }
  const [action, ...extra] = positionals;
  if (extra.length > 0 || (action !== 'migrate' && action !== 'purge')) throw new UsageError('expected "migrate" or "purge"');
  if (values.store === 'memory') throw new UsageError('--store memory has nothing to migrate or purge');
  const store = values.store;
  if (action === 'migrate') {
    const r = await withStore(store, () => migrateStore(store, { create: false }));
    if (values.json) process.stdout.write(`${JSON.stringify(r)}\n`);
    else if (r.applied.length === 0) process.stdout.write(`${r.label}: schema is up to date (version ${r.to})\n`);
    else process.stdout.write(`${r.label}: migrated from version ${r.from} to ${r.to} (applied ${r.applied.join(', ')})\n`);
    return 0;
  }
  const days = Number(values['older-than-days']);
  if (values['older-than-days'] === undefined || !(days > 0)) throw new UsageError('purge needs --older-than-days N (N > 0)');
  const opened = await withStore(store, () => openStore(store, { create: false }));
  try {
    const purged = (await opened.purge?.(new Date(Date.now() - days * 86_400_000))) ?? 0;
    if (values.json) process.stdout.write(`${JSON.stringify({ store: opened.label, purged })}\n`);
    else process.stdout.write(`${opened.label}: deleted ${purged} finished task(s) older than ${days} day(s)\n`);
    return 0;
  } finally {
    await opened.close();
  }
}
