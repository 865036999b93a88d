/**
 * EXT-02 / EXT-05 in the CLI: `--extension URI` (repeatable) activates extensions on the
 * commands that call the agent, and the ones the agent activated are shown — a line after the
 * human output; with --json the member `activatedExtensions` of the first line after the answer,
 * only when --extension was given (plain --json output is unchanged). The real `a2a` process
 * against our server (card declaring one extension) over JSON-RPC, HTTP+JSON and gRPC.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';
import { runToExit } from './cliHelpers.js';

const EXT = 'https://example.com/ext/audit/v1';
const UNKNOWN = 'https://example.com/ext/unknown/v1';

let agent: RunningAgent;
before(async () => {
  const base = demoCard();
  agent = await serveAgent({
    agent: { card: { ...base, capabilities: { ...base.capabilities, extensions: [{ uri: EXT }] } }, executor: createDemoAgent({ slowMs: 200, tickMs: 5 }) },
    port: 0,
    host: '127.0.0.1',
    shutdownTimeoutMs: 300,
    grpc: { port: 0 },
  });
});
after(() => agent.close());

const a2a = (...args: string[]) => runToExit(args);
const lines = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a2a --extension', { concurrency: 3 }, () => {
  for (const binding of ['jsonrpc', 'rest', 'grpc']) {
    test(`${binding}: send shows the activated extension and the unknown one not activated; --json adds activatedExtensions`, async () => {
      const human = await a2a('send', agent.baseUrl, 'hi', '--binding', binding, '--extension', EXT, '--extension', UNKNOWN);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /completed/);
      assert.match(human.stdout, new RegExp(`\\nextensions activated: ${EXT}; not activated: ${UNKNOWN}\\n$`));
      const json = await a2a('send', agent.baseUrl, 'hi', '--binding', binding, '--extension', EXT, '--extension', UNKNOWN, '--json');
      assert.equal(json.code, 0, json.stderr);
      const [result, ...rest] = lines(json.stdout);
      assert.deepEqual(rest, []);
      assert.deepEqual(result?.activatedExtensions, [EXT]);
      assert.ok(result && 'task' in result);
    });

    test(`${binding}: stream --json: the first event line carries activatedExtensions, the others not`, async () => {
      const r = await a2a('stream', agent.baseUrl, 'stream it', '--binding', binding, '--extension', EXT, '--json');
      assert.equal(r.code, 0, r.stderr);
      const events = lines(r.stdout);
      assert.ok(events.length > 2);
      assert.deepEqual(events[0]?.activatedExtensions, [EXT]);
      assert.ok('task' in (events[0] ?? {}));
      assert.deepEqual(events.slice(1).filter((e) => 'activatedExtensions' in e), []);
    });
  }

  test('get and stream (human): the line; only unknown ones: "none"; without --extension nothing changes', async () => {
    const sent = lines((await a2a('send', agent.baseUrl, 'hi', '--json')).stdout)[0] as { task: { id: string } };
    assert.equal('activatedExtensions' in sent, false, 'plain --json output is unchanged');
    const get = await a2a('get', agent.baseUrl, sent.task.id, '--extension', UNKNOWN);
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, new RegExp(`\\nextensions activated: none; not activated: ${UNKNOWN}\\n$`));
    const plain = await a2a('get', agent.baseUrl, sent.task.id);
    assert.doesNotMatch(plain.stdout, /extensions activated/);
    const stream = await a2a('stream', agent.baseUrl, 'stream it', '--extension', EXT);
    assert.equal(stream.code, 0, stream.stderr);
    assert.match(stream.stdout, new RegExp(`\\nextensions activated: ${EXT}\\n$`));
  });

  test('usage: --extension takes one URI; a2a card refuses it; --help lists it', async () => {
    const comma = await a2a('send', agent.baseUrl, 'hi', '--extension', `${EXT},${UNKNOWN}`);
    assert.equal(comma.code, 2);
    assert.match(comma.stderr, /--extension must be one URI/);
    const card = await a2a('card', agent.baseUrl, '--extension', EXT);
    assert.equal(card.code, 2);
    assert.match(card.stderr, /--extension is for the commands that call the agent/);
    for (const command of ['send', 'stream', 'get', 'list', 'cancel', 'subscribe', 'push', 'chat']) {
      assert.match((await a2a(command, '--help')).stdout, /--extension URI/, command);
    }
    assert.doesNotMatch((await a2a('card', '--help')).stdout, /--extension/);
  });
});
