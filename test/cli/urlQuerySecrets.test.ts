/**
 * R23: a credential in a URL's query never shows. A PostgreSQL `--store` URL may carry its
 * password as `?password=…` (or `?sslpassword=…`), which libpq and `pg` accept: the serve banner,
 * the `--json` listening line, `a2a db migrate --json` and the store errors (stderr and --json)
 * show it as `***`, as they do the password of `user:password@`. A webhook URL may carry
 * `?access_token=…`: `a2a push create` shows it as `***`, and so does `--verbose` in the request
 * body it prints.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { describeStore, parseStoreSpec } from '../../src/stores/contract/openStore.js';
import { redactUrls } from '../../src/cli/redact.js';
import { pgTestDatabase, type PgTestDatabase } from '../stores/pgSetup.js';
import { runA2A, runToExit, startServe } from './cliHelpers.js';

const PASSWORD = 'S3cretPw_xyz';
const SSL_PASSWORD = 'KeyPw_abc987';
const HOOK_TOKEN = 'HOOKTOKEN-1234';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function assertNoSecret(text: string): void {
  for (const secret of [PASSWORD, SSL_PASSWORD, HOOK_TOKEN]) assert.ok(!text.includes(secret), `${secret} shown in:\n${text}`);
}

describe('R23 credentials in URL query parameters', () => {
  test('R23 describeStore: password, sslpassword and key/token/secret-named query parameters are ***; the others stay', () => {
    const label = describeStore(parseStoreSpec(`postgres://opsu@db:5432/opsdb?password=${PASSWORD}&sslpassword=${SSL_PASSWORD}&sslmode=require&api_key=k1&auth_token=t1&client_secret=s1&application_name=ops&schema=ops2`));
    assert.equal(label, 'postgres://opsu@db:5432/opsdb?password=***&sslpassword=***&sslmode=require&api_key=***&auth_token=***&client_secret=***&application_name=ops (schema ops2)');
    assert.equal(describeStore(parseStoreSpec(`postgresql://u:${PASSWORD}@db/app?PassWord=${PASSWORD}`)), 'postgresql://u:***@db/app?PassWord=***');
  });

  test('R23 redactUrls: free text, every URL in it; names matched percent-decoded; text without URLs unchanged', () => {
    assert.equal(
      redactUrls(`POST {"url":"https://hooks.example/a?x=1&access_token=${HOOK_TOKEN}#f","token":"t"} and http://bob:pw@h/?access%5Ftoken=${HOOK_TOKEN}&y=2`),
      'POST {"url":"https://hooks.example/a?x=1&access_token=***#f","token":"t"} and http://bob:***@h/?access%5Ftoken=***&y=2',
    );
    assert.equal(redactUrls('token=abc password=def ?key=1'), 'token=abc password=def ?key=1');
  });

  test('R23 a2a db migrate --json and its stderr on an unreachable database: ?password= and ?sslpassword= shown as ***, exit 4', async () => {
    const store = `postgres://opsu@127.0.0.1:${await closedPort()}/opsdb?password=${PASSWORD}&sslpassword=${SSL_PASSWORD}&schema=ops2`;
    const r = await runToExit(['db', 'migrate', '--store', store, '--json']);
    assert.equal(r.code, 4, r.stderr);
    const { error } = JSON.parse(r.stdout) as { error: { message: string } };
    assert.match(error.message, /password=\*\*\*&sslpassword=\*\*\*/);
    assert.match(r.stderr, /password=\*\*\*&sslpassword=\*\*\*/);
    assertNoSecret(r.stdout + r.stderr);
  });

  test('R23 a2a push create with ?access_token= in the webhook URL: the human output and --verbose show it as ***', async () => {
    const { proc, urls } = await startServe(['--allow-private-webhooks']);
    try {
      const agent = new URL(urls.card).origin;
      const sent = await runToExit(['send', agent, 'hi', '--json']);
      assert.equal(sent.code, 0, sent.stderr);
      const taskId = (JSON.parse(sent.stdout) as { task: { id: string } }).task.id;
      const hook = `http://127.0.0.1:9/hook?v=1&access_token=${HOOK_TOKEN}`;
      const r = await runToExit(['push', 'create', agent, taskId, hook, '--verbose']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^url +http:\/\/127\.0\.0\.1:9\/hook\?v=1&access_token=\*\*\*$/m);
      assert.match(r.stderr, /"url":"http:\/\/127\.0\.0\.1:9\/hook\?v=1&access_token=\*\*\*"/, 'the request body is shown, masked');
      assertNoSecret(r.stdout + r.stderr);
      const listed = await runToExit(['push', 'list', agent, taskId]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /access_token=\*\*\*/);
      assertNoSecret(listed.stdout + listed.stderr);
    } finally {
      proc.kill();
    }
  });
});

describe('R23 a PostgreSQL --store with ?password= (a real database)', () => {
  let db: PgTestDatabase | string = 'not started';
  before(async () => {
    db = await pgTestDatabase();
  });
  after(async () => {
    if (typeof db !== 'string') await db.dispose();
  });

  test('R23 a2a serve banner and --json line, a2a db migrate --json: the password query parameter is ***', { timeout: 120_000 }, async (t) => {
    if (typeof db === 'string') return t.skip(db);
    const url = new URL(db.url);
    url.searchParams.set('password', PASSWORD);
    url.searchParams.set('schema', db.schema());
    const store = url.toString();

    const migrated = await runToExit(['db', 'migrate', '--store', store, '--json'], 60_000);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match((JSON.parse(migrated.stdout) as { label: string }).label, /\?password=\*\*\* \(schema s\d+\)$/);
    assertNoSecret(migrated.stdout + migrated.stderr);

    const { proc, urls } = await startServe(['--store', store]);
    proc.kill();
    assert.match((urls as unknown as { store: string }).store, /\?password=\*\*\* \(schema s\d+\)$/);
    assertNoSecret(proc.stdout + proc.stderr);

    const human = runA2A(['serve', '--port', '0', '--store', store], { NO_COLOR: '1' });
    try {
      const line = await human.waitForLine(/^\s*Store\s/, 60_000);
      assert.match(line, /\?password=\*\*\* \(schema s\d+\)$/);
      assertNoSecret(human.stdout + human.stderr);
    } finally {
      human.kill();
    }
  });
});
