/** `a2a list`: tasks as a table (ListTasks), optionally every page. */
import { parseArgs } from 'node:util';
import type { ListTasksRequest, ListTasksResponse, Task, TaskState } from '../../protocol/types.js';
import { intOption, positionalsOf } from '../args.js';
import { CLIENT_OPTIONS, CLIENT_OPTIONS_HELP, createCli, runCommand } from '../cli.js';
import { checkClientFlags, connect } from '../connect.js';
import { stateName, styledState, textOf } from '../render/parts.js';
import { renderTable } from '../render/table.js';
import { UsageError } from '../usage.js';

export const listHelp = `Usage: a2a list <url> [options]

List the agent's tasks, most recently updated first, as a table (id, context, state,
last update, status message). One page unless --all.

Options:
  --context ID       only tasks of this context
  --status STATE     only tasks in this state: submitted, working, input-required,
                     auth-required, completed, failed, canceled, rejected
                     (TASK_STATE_WORKING and WORKING are accepted too)
  --since ISO        only tasks whose status changed after this time (2025-01-31T12:00:00Z)
  --page-size N      tasks per page, 1–100 (the agent's default otherwise)
  --page-token T     start at this page (from a previous listing)
  --all              follow nextPageToken to the last page
  --history N        include at most N messages of each task's history (--json)
  --artifacts        include the artifacts (--json)

${CLIENT_OPTIONS_HELP}
Examples:
  a2a list http://localhost:8080
  a2a list http://localhost:8080 --status working --page-size 20
  a2a list http://localhost:8080 --context 0c6e… --since 2025-06-01T00:00:00Z --all
  a2a list http://localhost:8080 --all --json | jq -r '.tasks[].id'
`;

const STATES = ['SUBMITTED', 'WORKING', 'INPUT_REQUIRED', 'AUTH_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELED', 'REJECTED'];

/** `working`, `WORKING`, `input-required`, `TASK_STATE_WORKING`, `cancelled` → the TaskState. */
export function parseState(value: string): TaskState {
  let name = value.trim().toUpperCase().replace(/[-\s]/g, '_').replace(/^TASK_STATE_/, '');
  if (name === 'CANCELLED') name = 'CANCELED';
  if (!STATES.includes(name)) {
    throw new UsageError(`--status must be one of ${STATES.map((s) => stateName(s)).join(', ')}; got "${value}"`);
  }
  return `TASK_STATE_${name}` as TaskState;
}

function parseSince(value: string): string {
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new UsageError(`--since must be an ISO 8601 time such as 2025-01-31T12:00:00Z, got "${value}"`);
  return new Date(ms).toISOString();
}

/** Guards --all against an agent that hands out the same page token forever. */
const MAX_PAGES = 10_000;

export async function listCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...CLIENT_OPTIONS,
      context: { type: 'string' },
      status: { type: 'string' },
      since: { type: 'string' },
      'page-size': { type: 'string' },
      'page-token': { type: 'string' },
      all: { type: 'boolean', default: false },
      history: { type: 'string' },
      artifacts: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(listHelp);
    return 0;
  }
  const [url = ''] = positionalsOf(positionals, ['url']);
  checkClientFlags(url, values);
  const request: ListTasksRequest = {};
  if (values.context !== undefined) request.contextId = values.context;
  if (values.status !== undefined) request.status = parseState(values.status);
  if (values.since !== undefined) request.statusTimestampAfter = parseSince(values.since);
  const pageSize = intOption(values['page-size'], '--page-size', { min: 1, max: 100 });
  if (pageSize !== undefined) request.pageSize = pageSize;
  if (values['page-token'] !== undefined) request.pageToken = values['page-token'];
  const history = intOption(values.history, '--history', { min: 0 });
  if (history !== undefined) request.historyLength = history;
  if (values.artifacts) request.includeArtifacts = true;

  const cli = createCli('list', values);
  return runCommand(cli, async () => {
    const client = await connect(cli, url, values);
    let page = await client.listTasks(request);
    const tasks: Task[] = [...page.tasks];
    const seen = new Set<string>();
    for (let n = 1; values.all && page.nextPageToken && !seen.has(page.nextPageToken) && n < MAX_PAGES; n++) {
      seen.add(page.nextPageToken);
      page = await client.listTasks({ ...request, pageToken: page.nextPageToken });
      tasks.push(...page.tasks);
    }
    const result: ListTasksResponse = values.all ? { ...page, tasks, nextPageToken: '' } : page;
    if (cli.json) {
      cli.jsonLine(result);
      return 0;
    }
    if (!tasks.length) {
      cli.out(`no tasks${result.totalSize ? ` on this page (${result.totalSize} in all)` : ''}\n`);
      return 0;
    }
    const rows = tasks.map((t) => [
      t.id,
      t.contextId ?? '',
      styledState(t.status.state, cli.style),
      t.status.timestamp ?? '',
      textOf(t.status.message?.parts).split('\n')[0] ?? '',
    ]);
    cli.out(renderTable(['TASK', 'CONTEXT', 'STATE', 'UPDATED', 'STATUS'], rows, { header: cli.style.dim }));
    const total = typeof result.totalSize === 'number' ? result.totalSize : undefined;
    const count = total === undefined ? `${tasks.length}` : `${tasks.length} of ${total}`;
    const noun = (total ?? tasks.length) === 1 ? 'task' : 'tasks';
    const more = result.nextPageToken ? `; next page: --page-token ${result.nextPageToken} (or --all)` : '';
    cli.out(cli.style.dim(`${count} ${noun}${more}`) + '\n');
    return 0;
  });
}
