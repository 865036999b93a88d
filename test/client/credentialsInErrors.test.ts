/**
 * R23: an API key the card puts in the query (`{location: 'query', name: 'api_key'}`) never shows
 * in an error message: the SDK names the URL with the key as `***` (messages land in application
 * logs), and the CLI masks the credential values it was given (`--api-key`, `A2A_TOKEN`) in every
 * error it prints, on stderr and in --json, whatever put them there.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClientError, apiKey, createClient } from '../../src/client/index.js';
import { runA2A } from '../cli/cliHelpers.js';
import { cardAt, closedPort, rpcId, sendJson, startFakeAgent, type FakeAgent } from './fakeAgent.js';

const KEY = 'SUPER-SECRET-KEY';
const querySchemes = { key: { apiKeySecurityScheme: { location: 'query', name: 'api_key' } } };

/** Serves a card whose interface is unreachable (`/unreachable`) or its own /rpc, where every call fails with an error echoing the key (or bearer token). */
let agent: FakeAgent;
let deadUrl: string;

before(async () => {
  deadUrl = `http://127.0.0.1:${await closedPort()}/rpc`;
  agent = await startFakeAgent((req, res) => {
    if (req.url === '/unreachable/.well-known/agent-card.json') return sendJson(res, 200, cardAt(deadUrl, { securitySchemes: querySchemes }));
    if (req.url === '/.well-known/agent-card.json') return sendJson(res, 200, cardAt(`${agent.url}/rpc`, { securitySchemes: querySchemes }));
    // An agent that repeats the key it was given in its error (message and ErrorInfo metadata).
    const key = new URL(req.url, agent.url).searchParams.get('api_key') ?? req.headers.authorization?.replace(/^Bearer /, '') ?? '';
    sendJson(res, 200, {
      jsonrpc: '2.0',
      id: rpcId(req),
      error: {
        code: -32001,
        message: `Task t1 not found for key ${key}`,
        data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 't1', key } }],
      },
    });
  });
});
after(() => agent?.close());

describe('R23 an API key in the query is not repeated by error messages', () => {
  test('SDK: NETWORK names the interface URL with api_key=***', async () => {
    const client = await createClient(cardAt(deadUrl, { securitySchemes: querySchemes }), { auth: apiKey(KEY), retry: false });
    await assert.rejects(client.getTask({ id: 't1' }), (error: unknown) => {
      assert.ok(A2AClientError.is(error, 'NETWORK'), String(error));
      assert.equal(error.message, `Could not reach ${deadUrl}?api_key=***`);
      return true;
    });
  });

  for (const json of [false, true]) {
    test(`a2a get <card> t1 --api-key …${json ? ' --json' : ''}, interface unreachable: the key shows nowhere`, async () => {
      const proc = runA2A(['get', `${agent.url}/unreachable`, 't1', '--api-key', KEY, ...(json ? ['--json'] : [])], { A2A_TOKEN: '', NO_COLOR: '1' });
      const { code } = await proc.exited;
      assert.equal(code, 4, proc.stderr);
      assert.match(proc.stderr, /NETWORK: Could not reach http:\/\/127\.0\.0\.1:\d+\/rpc\?api_key=\*\*\*/);
      if (json) assert.match(proc.stdout, /"code":"NETWORK"/);
      assert.ok(!`${proc.stdout}${proc.stderr}`.includes(KEY), `${proc.stdout}${proc.stderr}`);
    });
  }

  test('a2a get … --json: an agent error echoing the key (message, metadata) is printed with *** instead', async () => {
    const proc = runA2A(['get', agent.url, 't1', '--api-key', KEY, '--json'], { A2A_TOKEN: '', NO_COLOR: '1' });
    const { code } = await proc.exited;
    assert.equal(code, 3, proc.stderr);
    assert.match(proc.stderr, /TASK_NOT_FOUND: Task t1 not found for key \*\*\*/);
    const report = (JSON.parse(proc.stdout.trim().split('\n')[0] as string) as { error: { message: string; metadata: Record<string, string> } }).error;
    assert.equal(report.message, 'Task t1 not found for key ***');
    assert.equal(report.metadata.key, '***');
    assert.ok(!`${proc.stdout}${proc.stderr}`.includes(KEY), `${proc.stdout}${proc.stderr}`);
  });

  test('A2A_TOKEN is masked the same way', async () => {
    const token = 'BEARER-TOKEN-5678';
    const proc = runA2A(['get', agent.url, 't1'], { A2A_TOKEN: token, NO_COLOR: '1' });
    await proc.exited;
    assert.match(proc.stderr, /for key \*\*\*/);
    assert.ok(!proc.stderr.includes(token), proc.stderr);
  });
});
