/**
 * HTTP+JSON paths go below the interface URL and ahead of its own query string (REST-02): an
 * interface url with a key in the query (Azure Functions `?code=KEY`) keeps the key, for unary
 * calls, event streams, and the A2A 0.3 REST routes alike.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, type AgentCard } from '../../src/client/index.js';
import { below } from '../../src/client/http.js';

const BASE = 'https://fn.example.net/api/a2a?code=KEY';

function cardAt(protocolVersion: string): AgentCard {
  return {
    name: 'fn',
    description: 'an agent behind a function key',
    version: '1',
    capabilities: { streaming: true },
    supportedInterfaces: [{ url: BASE, protocolBinding: 'HTTP+JSON', protocolVersion }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

/** A client whose every request is recorded and then fails at the network. */
async function recording(protocolVersion: string): Promise<{ client: Awaited<ReturnType<typeof createClient>>; urls: string[] }> {
  const urls: string[] = [];
  const fetch = async (url: string) => {
    urls.push(url);
    throw new Error('offline');
  };
  const client = await createClient(cardAt(protocolVersion), { fetch, retry: false, resume: false });
  return { client, urls };
}

describe('REST-02 HTTP+JSON paths below an interface URL with a query string', () => {
  test('below(): the path before the query, trailing slashes and the fragment dropped', () => {
    assert.equal(below(BASE, '/tasks/t1'), 'https://fn.example.net/api/a2a/tasks/t1?code=KEY');
    assert.equal(below('https://h/a2a/?k=1&x=2#frag', '/message:send'), 'https://h/a2a/message:send?k=1&x=2');
    assert.equal(below('https://h/a2a//', '/tasks'), 'https://h/a2a/tasks');
  });

  test('1.0: unary calls and event streams keep ?code=KEY after the path, call parameters after it', async () => {
    const { client, urls } = await recording('1.0');
    await assert.rejects(client.getTask({ id: 't1', historyLength: 2 }));
    await assert.rejects(client.listTasks({ pageSize: 5 }));
    await assert.rejects(client.sendText('hi'));
    await assert.rejects(async () => {
      for await (const _ of client.subscribeToTask({ id: 't1' })) void _;
    });
    assert.deepEqual(urls, [
      'https://fn.example.net/api/a2a/tasks/t1?code=KEY&historyLength=2',
      'https://fn.example.net/api/a2a/tasks?code=KEY&pageSize=5',
      'https://fn.example.net/api/a2a/message:send?code=KEY',
      'https://fn.example.net/api/a2a/tasks/t1:subscribe?code=KEY',
    ]);
  });

  test('0.3 REST routes the same way', async () => {
    const { client, urls } = await recording('0.3');
    await assert.rejects(client.getTask({ id: 't1', historyLength: 2 }));
    await assert.rejects(async () => {
      for await (const _ of client.subscribeToTask({ id: 't1' })) void _;
    });
    assert.deepEqual(urls, [
      'https://fn.example.net/api/a2a/v1/tasks/t1?code=KEY&historyLength=2',
      'https://fn.example.net/api/a2a/v1/tasks/t1:subscribe?code=KEY',
    ]);
  });
});
