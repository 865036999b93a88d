/**
 * The `a2a` client commands against an A2A 0.3 agent (the official 0.3 SDK server), as real
 * processes: `a2a list` has no 0.3 operation, so the client refuses it without sending anything;
 * the CLI says so (not "the agent answered"), with the protocol error's exit code 3.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSdk03Server, type Sdk03Server } from '../support/sdk03Server.js';
import { runToExit } from './cliHelpers.js';

describe('a2a against an A2A 0.3 agent', () => {
  let sdk: Sdk03Server;
  before(async () => {
    sdk = await startSdk03Server();
  });
  after(() => sdk.close());

  test('list: refused by the client (nothing sent), exit 3; --json marks the report notSent', async () => {
    const r = await runToExit(['list', sdk.url]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /^a2a list: refused by the client, nothing sent: UNSUPPORTED_OPERATION: listTasks is not available over A2A 0\.3\b/m);
    assert.doesNotMatch(r.stderr, /the agent answered/);
    const j = await runToExit(['list', sdk.url, '--json']);
    assert.equal(j.code, 3);
    const report = (JSON.parse(j.stdout) as { error: { type: string; code: string; notSent?: boolean; exitCode: number } }).error;
    assert.deepEqual({ type: report.type, code: report.code, notSent: report.notSent, exitCode: report.exitCode }, { type: 'protocol', code: 'UNSUPPORTED_OPERATION', notSent: true, exitCode: 3 });
    assert.deepEqual(sdk.requests, [], 'nothing reached the agent');
  });

  test('VER-05 card --json prints the card as received: the 0.3 JSON, not its 1.0 translation (--verify --json too)', async () => {
    const served = (await (await fetch(`${sdk.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    assert.equal(typeof served.url, 'string', 'a 0.3 card');
    const r = await runToExit(['card', sdk.url, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), served);
    const v = await runToExit(['card', sdk.url, '--verify', '--json']);
    assert.equal(v.code, 0, v.stderr);
    assert.deepEqual((JSON.parse(v.stdout) as { card: unknown }).card, served);
  });

  test('an error the 0.3 agent sends is still "the agent answered"', async () => {
    const r = await runToExit(['get', sdk.url, 'no-such-task']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /^a2a get: the agent answered: TASK_NOT_FOUND: /m);
  });
});
