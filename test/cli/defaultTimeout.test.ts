/**
 * Without --timeout the client commands still have a time limit (DEFAULT_TIMEOUT_MS) on the card
 * fetch and on each call: an agent that accepts the connection and never answers ends in TIMEOUT
 * (exit 4), not a silent hang. What lasts as long as the task (an open stream, a blocking
 * SendMessage) is not cut by it. The 30 s default is checked as the computed option; the real
 * listener below uses a short --timeout (a2a card against a silent TCP listener: commands.test.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCli } from '../../src/cli/cli.js';
import { clientOptions, DEFAULT_TIMEOUT_MS, timeoutOf, waitingCall } from '../../src/cli/connect.js';
import { runToExit } from './cliHelpers.js';

const CARD = {
  name: 'silent agent',
  description: 'serves its card, never answers a call',
  version: '1.0.0',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};

/** Serves its card; holds every other request open. */
let cardOnly: http.Server | undefined;
const held = new Set<http.ServerResponse>();
let cardOnlyUrl = '';

before(async () => {
  cardOnly = http.createServer((req, res) => {
    if (req.url !== '/.well-known/agent-card.json') return void held.add(res);
    const supportedInterfaces = [{ url: `${cardOnlyUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...CARD, supportedInterfaces }));
  });
  await new Promise<void>((resolve) => cardOnly?.listen(0, '127.0.0.1', resolve));
  cardOnlyUrl = `http://127.0.0.1:${(cardOnly.address() as AddressInfo).port}`;
});
after(() => {
  for (const res of held) res.destroy();
  cardOnly?.close();
});

describe('the default time limit of the client commands', { concurrency: 3 }, () => {
  test('R18 without --timeout the card fetch and every call are limited to DEFAULT_TIMEOUT_MS (30 s); --timeout replaces it', () => {
    assert.equal(DEFAULT_TIMEOUT_MS, 30_000);
    assert.equal(timeoutOf({}), DEFAULT_TIMEOUT_MS);
    assert.equal(timeoutOf({ timeout: '250' }), 250);
    const cli = createCli('get', {});
    assert.equal(clientOptions(cli, {}).timeoutMs, DEFAULT_TIMEOUT_MS);
    assert.equal(clientOptions(cli, { timeout: '250' }).timeoutMs, 250);
  });

  test('R18 a blocking SendMessage waits as long as the task runs unless --timeout is given', () => {
    assert.deepEqual(waitingCall({}), { timeoutMs: Infinity });
    assert.deepEqual(waitingCall({ timeout: '250' }), {});
  });

  test('R18 a2a get to an agent that serves its card but never answers the call → exit 4 TIMEOUT (--timeout 300)', async () => {
    const r = await runToExit(['get', cardOnlyUrl, 'task-1', '--timeout', '300', '--json']);
    assert.equal(r.code, 4, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { error: { code: string } }).error.code, 'TIMEOUT');
    assert.match(r.stderr, /^a2a get: client error: TIMEOUT: The call timed out$/m);
  });
});
