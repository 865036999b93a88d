/**
 * `a2a push create|get|list|delete` as real processes against the official SDK server (push
 * notifications on), over JSON-RPC and HTTP+JSON: the config round trip, secrets kept out of
 * human output, the exit codes (0, 2 usage, 3 agent error), the help and the docs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { authenticationOf, pushHelp, webhookUrl } from '../../src/cli/commands/push.js';
import { renderPushConfig, renderPushConfigs } from '../../src/cli/render/pushConfig.js';
import { createStyle } from '../../src/cli/render/style.js';
import { createClient } from '../../src/client/index.js';
import type { ListTaskPushNotificationConfigsResponse, TaskPushNotificationConfig } from '../../src/protocol/types.js';
import { startSdkServer, type SdkServer } from '../support/sdkServer.js';
import { runA2A, startServe } from './cliHelpers.js';

const TOKEN = 'tok-do-not-print-4711';
const CREDENTIALS = 'cred-do-not-print-0815';
const ENV_CREDENTIALS = 'env-cred-do-not-print-42';

async function a2a(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = runA2A(args, env);
  const timer = setTimeout(() => proc.kill(), 20_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout, stderr: proc.stderr };
}

function json<T>(stdout: string): T {
  try {
    return JSON.parse(stdout) as T;
  } catch {
    throw new Error(`not one JSON document: ${stdout}`);
  }
}

function assertNoSecrets(text: string): void {
  for (const secret of [TOKEN, CREDENTIALS, ENV_CREDENTIALS]) assert.ok(!text.includes(secret), `a secret in: ${text}`);
}

describe('a2a push against the official SDK server', () => {
  let sdk: SdkServer;
  before(async () => {
    sdk = await startSdkServer();
  });
  after(() => sdk.close());

  /** A fresh (completed) task of the SDK agent. */
  async function newTask(): Promise<string> {
    const client = await createClient(sdk.url, { cardCache: false });
    const result = await client.sendText('hi push');
    assert.ok('task' in result);
    return result.task.id;
  }

  for (const [binding, wire] of [
    ['jsonrpc', 'JSONRPC'],
    ['rest', 'HTTP+JSON'],
  ] as const) {
    test(`--binding ${binding}: create (token, auth) → get → list → delete → get fails with exit 3`, async () => {
      const task = await newTask();
      const common = ['--binding', binding];

      // create: --auth "Bearer X" split at the first space; --json prints the config as returned.
      const created = await a2a(['push', 'create', sdk.url, task, sdk.hookUrl, '--token', TOKEN, '--auth', `Bearer ${CREDENTIALS}`, '--id', 'cfg-1', '--json', ...common]);
      assert.equal(created.code, 0, created.stderr);
      assert.deepEqual(json<TaskPushNotificationConfig>(created.stdout), {
        id: 'cfg-1',
        taskId: task,
        url: sdk.hookUrl,
        token: TOKEN,
        authentication: { scheme: 'Bearer', credentials: CREDENTIALS },
      });

      // create, human: credentials from the environment, masked in the output.
      const second = await a2a(['push', 'create', sdk.url, task, `${sdk.hookUrl}?n=2`, '--auth-scheme', 'Basic', '--auth-credentials-env', 'HOOK_CREDS', '--id', 'cfg-2', ...common], {
        HOOK_CREDS: ENV_CREDENTIALS,
      });
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stdout, /^config\s+cfg-2$/m);
      assert.match(second.stdout, /^token\s+none$/m);
      assert.match(second.stdout, /^auth\s+Basic \*\*\*$/m);
      assertNoSecrets(second.stdout + second.stderr);

      // get, human, over the binding asked for (--verbose names it).
      const got = await a2a(['push', 'get', sdk.url, task, 'cfg-1', '--verbose', ...common]);
      assert.equal(got.code, 0, got.stderr);
      assert.match(got.stderr, new RegExp(`getTaskPushNotificationConfig via ${wire.replace('+', '\\+')} `));
      assert.match(got.stdout, /^config\s+cfg-1$/m);
      assert.match(got.stdout, new RegExp(`^task\\s+${task}$`, 'm'));
      assert.ok(got.stdout.includes(`url      ${sdk.hookUrl}\n`), got.stdout);
      assert.match(got.stdout, /^token\s+set$/m);
      assert.match(got.stdout, /^auth\s+Bearer \*\*\*$/m);
      assertNoSecrets(got.stdout);

      const gotJson = json<TaskPushNotificationConfig>((await a2a(['push', 'get', sdk.url, task, 'cfg-1', '--json', ...common])).stdout);
      assert.equal(gotJson.token, TOKEN);
      assert.deepEqual(gotJson.authentication, { scheme: 'Bearer', credentials: CREDENTIALS });

      // list: --json as returned (secrets included), human without them.
      const listed = await a2a(['push', 'list', sdk.url, task, '--json', ...common]);
      assert.equal(listed.code, 0, listed.stderr);
      const page = json<ListTaskPushNotificationConfigsResponse>(listed.stdout);
      assert.deepEqual(page.configs?.map((c) => c.id).sort(), ['cfg-1', 'cfg-2']);
      assert.ok(listed.stdout.includes(TOKEN) && listed.stdout.includes(ENV_CREDENTIALS));
      const all = json<ListTaskPushNotificationConfigsResponse>((await a2a(['push', 'list', sdk.url, task, '--all', '--page-size', '1', '--json', ...common])).stdout);
      assert.equal(all.configs?.length, 2);
      assert.equal(all.nextPageToken, '');
      const human = await a2a(['push', 'list', sdk.url, task, ...common]);
      assert.equal(human.code, 0, human.stderr);
      assert.equal(human.stdout.match(/^config /gm)?.length, 2, human.stdout);
      assert.match(human.stdout, /^2 configs$/m);
      assertNoSecrets(human.stdout + human.stderr);

      // delete, then the config is gone: exit 3 (the SDK answers TASK_NOT_FOUND).
      const deleted = await a2a(['push', 'delete', sdk.url, task, 'cfg-1', ...common]);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(deleted.stdout, `deleted push notification config cfg-1 of task ${task} (if it existed)\n`);
      const deletedJson = await a2a(['push', 'delete', sdk.url, task, 'cfg-2', '--json', ...common]);
      assert.equal(deletedJson.code, 0, deletedJson.stderr);
      assert.deepEqual(json(deletedJson.stdout), {});
      const gone = await a2a(['push', 'get', sdk.url, task, 'cfg-1', ...common]);
      assert.equal(gone.code, 3, gone.stderr);
      assert.match(gone.stderr, /^a2a push: the agent answered: /);
      const goneJson = await a2a(['push', 'get', sdk.url, task, 'cfg-1', '--json', ...common]);
      assert.equal(goneJson.code, 3);
      assert.equal(json<{ error: { type: string; exitCode: number } }>(goneJson.stdout).error.exitCode, 3);
      const empty = await a2a(['push', 'list', sdk.url, task, ...common]);
      assert.equal(empty.code, 0, empty.stderr);
      assert.equal(empty.stdout, `no push notification configs for task ${task}\n`);
    });
  }

  test('an unknown task: exit 3 with TASK_NOT_FOUND', async () => {
    const r = await a2a(['push', 'list', sdk.url, 'no-such-task']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /TASK_NOT_FOUND/);
  });
});

describe('a2a push against a2a serve (the demo agent)', () => {
  test('delete of a config id the task does not have: exit 0, as deleting is idempotent (PUSH-07); get of it: TASK_NOT_FOUND, exit 3 (PUSH-03)', async (t) => {
    const { proc, urls } = await startServe();
    t.after(() => proc.kill());
    const url = new URL(urls.card).origin;
    const sent = await a2a(['send', url, 'hi', '--json']);
    assert.equal(sent.code, 0, sent.stderr);
    const task = json<{ task: { id: string } }>(sent.stdout).task.id;
    const deleted = await a2a(['push', 'delete', url, task, 'nope-config']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout, `deleted push notification config nope-config of task ${task} (if it existed)\n`);
    const got = await a2a(['push', 'get', url, task, 'nope-config']);
    assert.equal(got.code, 3, got.stderr);
    assert.match(got.stderr, /TASK_NOT_FOUND: Push notification config nope-config not found/);
    const unknownTask = await a2a(['push', 'delete', url, 'no-such-task', 'nope-config']);
    assert.equal(unknownTask.code, 3, unknownTask.stderr);
    assert.match(unknownTask.stderr, /TASK_NOT_FOUND/);
  });
});

describe('a2a push: usage', () => {
  const usage: [string[], RegExp, Record<string, string>?][] = [
    [['push'], /missing <create\|get\|list\|delete>/],
    [['push', 'update', 'http://x', 't'], /unknown subcommand "update": expected create, get, list or delete/],
    [['push', 'create', 'http://x', 't'], /missing <webhook-url>/],
    [['push', 'create', 'http://x'], /missing <task> <webhook-url>/],
    [['push', 'get', 'http://x', 't'], /missing <config-id>/],
    [['push', 'delete', 'http://x', 't'], /missing <config-id>/],
    [['push', 'list', 'http://x'], /missing <task>/],
    [['push', 'list', 'http://x', 't', 'extra'], /unexpected argument "extra"/],
    [['push', 'create', 'http://x', 't', 'hooks.example.com/a2a'], /<webhook-url> must be an absolute http\(s\) URL, got "hooks\.example\.com\/a2a"/],
    [['push', 'create', 'http://x', 't', 'ftp://hooks.example.com/a2a'], /<webhook-url> must be http\(s\)/],
    [['push', 'create', 'not a url', 't', 'http://h'], /<url> must be an absolute http\(s\) URL/],
    [['push', 'create', 'http://x', 't', 'http://h', '--auth-credentials', 'c'], /--auth-credentials needs --auth-scheme/],
    [['push', 'create', 'http://x', 't', 'http://h', '--auth', 'Bearer c', '--auth-scheme', 'Basic'], /--auth and --auth-scheme\/--auth-credentials\/--auth-credentials-env exclude each other/],
    [['push', 'create', 'http://x', 't', 'http://h', '--auth-scheme', 'Bearer', '--auth-credentials', 'c', '--auth-credentials-env', 'V'], /exclude each other/],
    [['push', 'create', 'http://x', 't', 'http://h', '--auth-scheme', 'Bearer', '--auth-credentials-env', 'A2A_PUSH_TEST_UNSET'], /environment variable A2A_PUSH_TEST_UNSET is not set/],
    [['push', 'create', 'http://x', 't', 'http://h', '--auth-scheme', 'Bearer', '--auth-credentials-env', 'EMPTY'], /environment variable EMPTY is not set or empty/, { EMPTY: '' }],
    [['push', 'create', 'http://x', 't', 'http://h', '--auth-scheme', 'Bea rer'], /scheme must be one word/],
    [['push', 'create', 'http://x', 't', 'http://h', '--token', ''], /--token must not be empty/],
    [['push', 'get', 'http://x', 't', 'c', '--token', 'T'], /--token is for a2a push create/],
    [['push', 'create', 'http://x', 't', 'http://h', '--all'], /--all is for a2a push list/],
    [['push', 'list', 'http://x', 't', '--page-size', '0'], /--page-size must be an integer ≥ 1/],
    [['push', 'list', 'http://x', 't', '--binding', 'soap'], /--binding must be jsonrpc, rest or grpc/],
    [['push', 'list', 'http://x', 't', '--bogus'], /unknown option --bogus/],
  ];
  for (const [args, message, env] of usage) {
    test(`a2a ${args.join(' ')} → exit 2 with the message and the way to the help`, async () => {
      const r = await a2a(args, env);
      assert.equal(r.code, 2, `stdout: ${r.stdout} stderr: ${r.stderr}`);
      assert.match(r.stderr, /^a2a push: [^\n]+\nsee a2a push --help\n$/);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    });
  }

  test('--help: usage, subcommands, options and examples on stdout, exit 0', async () => {
    for (const args of [['push', '--help'], ['push', 'create', '-h']]) {
      const r = await a2a(args);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, pushHelp);
      assert.equal(r.stderr, '');
    }
    assert.match(pushHelp, /^Usage: a2a push <create\|get\|list\|delete> <url> <task>/);
    for (const word of ['create', 'get', 'list', 'delete', '--token', '--auth', '--auth-scheme', '--auth-credentials', '--auth-credentials-env', '--id', '--page-size', '--page-token', '--all', '--binding', '--json', 'A2A_TOKEN']) {
      assert.ok(pushHelp.includes(word), word);
    }
    assert.match(pushHelp, /Examples:\n[\s\S]*a2a push create http/);
    assert.match(pushHelp, /Exit codes: 0 ok, 2 usage, 3 error from the agent, 4 network or client error/);
  });

  test('a2a --help lists push (under "Call an agent") and webhook (under "Receive")', async () => {
    const r = await a2a(['--help']);
    assert.match(r.stdout, /^Call an agent:\n(?: {2}\w+ +.+\n)*? {2}push {8}manage a task's push notification configs \(webhooks\)$/m);
    assert.match(r.stdout, /^Receive:\n {2}webhook {5}receive push notifications: a2a webhook listen$/m);
  });

  test('docs/cli.md documents a2a push and every option of its help', async () => {
    const doc = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    assert.match(doc, /^## a2a push$/m);
    assert.match(doc, /^\| \[`a2a push .*`\]\(#a2a-push\) \| /m, 'in the table of commands');
    const section = doc.slice(doc.indexOf('## a2a push'));
    for (const option of new Set(pushHelp.match(/--[a-z][a-z-]+/g) ?? [])) assert.ok(doc.includes(option), option);
    for (const option of ['--auth-credentials-env', '--token', '--auth-scheme', '--page-token', '--all']) assert.ok(section.includes(option), option);
  });
});

describe('a2a push: helpers', () => {
  test('authenticationOf: --auth splits at the first space; the parts; the environment', () => {
    assert.equal(authenticationOf({}, {}), undefined);
    assert.deepEqual(authenticationOf({ auth: 'Bearer abc def' }, {}), { scheme: 'Bearer', credentials: 'abc def' });
    assert.deepEqual(authenticationOf({ auth: '  Basic   dXNlcjpwdw==  ' }, {}), { scheme: 'Basic', credentials: 'dXNlcjpwdw==' });
    assert.deepEqual(authenticationOf({ auth: 'Custom' }, {}), { scheme: 'Custom' });
    assert.deepEqual(authenticationOf({ 'auth-scheme': 'Bearer', 'auth-credentials': 'x' }, {}), { scheme: 'Bearer', credentials: 'x' });
    assert.deepEqual(authenticationOf({ 'auth-scheme': 'Bearer', 'auth-credentials-env': 'K' }, { K: 'from-env' }), { scheme: 'Bearer', credentials: 'from-env' });
    assert.deepEqual(authenticationOf({ 'auth-scheme': 'Bearer' }, {}), { scheme: 'Bearer' });
    assert.throws(() => authenticationOf({ auth: '   ' }, {}), /--auth must be "SCHEME CREDENTIALS"/);
    assert.throws(() => authenticationOf({ 'auth-scheme': '' }, {}), /--auth-scheme must not be empty/);
    assert.throws(() => authenticationOf({ 'auth-credentials-env': 'K' }, { K: 'v' }), /--auth-credentials-env needs --auth-scheme/);
  });

  test('webhookUrl: absolute http(s) URLs, as given', () => {
    assert.equal(webhookUrl('https://hooks.example.com/a2a?x=1'), 'https://hooks.example.com/a2a?x=1');
    assert.equal(webhookUrl('http://127.0.0.1:9000'), 'http://127.0.0.1:9000');
    assert.throws(() => webhookUrl('/relative'), /absolute http\(s\) URL/);
    assert.throws(() => webhookUrl('mailto:a@b.c'), /must be http\(s\)/);
  });

  test('renderPushConfig: token set/none, credentials masked, nothing secret printed', () => {
    const style = createStyle(false);
    const text = renderPushConfig({ id: 'c1', taskId: 't1', url: 'https://h/x', token: TOKEN, authentication: { scheme: 'Bearer', credentials: CREDENTIALS } }, style);
    assert.equal(text, 'config   c1\ntask     t1\nurl      https://h/x\ntoken    set\nauth     Bearer ***\n');
    assert.equal(renderPushConfig({ url: 'https://h/x' }, style), 'config   (no id)\nurl      https://h/x\ntoken    none\nauth     none\n');
    assert.match(renderPushConfig({ id: 'c', url: 'u', authentication: { scheme: 'Basic' } }, style), /^auth {5}Basic$/m);
    assert.match(renderPushConfig({ id: 'c', url: 'u', tenant: 'acme' }, style), /^tenant {3}acme$/m);
    const two = renderPushConfigs([{ id: 'a', url: 'u' }, { id: 'b', url: 'v' }], createStyle(true));
    assert.equal(two.split('\n\n').length, 2);
    assertNoSecrets(text + two);
  });
});
