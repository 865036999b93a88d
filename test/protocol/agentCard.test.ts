/** The public Agent Card at /.well-known/agent-card.json (CARD, CACHE rules). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ERROR_INFO_TYPE, jsonRpcBinding, restBinding, type Json } from '../support/bindings.js';
import { ok } from '../support/assertions.js';
import { startServer, type TestServer } from '../support/server.js';

const PATH = '/.well-known/agent-card.json';
let server: TestServer;
let cached: TestServer;
/** A card that sets pushNotifications: false explicitly (the demo card declares push). */
let noPush: TestServer;
before(async () => {
  server = await startServer();
  cached = await startServer({ handler: { cardMaxAgeSeconds: 42 } });
  noPush = await startServer({ card: (c) => ({ ...c, capabilities: { ...c.capabilities, pushNotifications: false } }) });
});
after(() => Promise.all([server.close(), cached.close(), noPush.close()]));

/** The card as a 1.0 client asks for it (our client and the 1.0 SDK send A2A-Version on card requests). */
const get = (s: TestServer, headers: Record<string, string> = {}, method = 'GET') => fetch(s.url + PATH, { method, headers: { 'a2a-version': '1.0', ...headers } });

describe('Agent Card', () => {
  test('CARD-02 CACHE-01..03 CARD-11 200 JSON with ETag, Last-Modified, Cache-Control max-age and CORS', async () => {
    const res = await get(server);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.match(res.headers.get('etag') ?? '', /^(W\/)?"[^"]+"$/);
    const lastModified = res.headers.get('last-modified') ?? '';
    assert.ok(!Number.isNaN(Date.parse(lastModified)) && Date.parse(lastModified) <= Date.now(), lastModified);
    assert.match(res.headers.get('cache-control') ?? '', /max-age=\d+/);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(await res.json(), server.card);
    assert.match((await get(cached)).headers.get('cache-control') ?? '', /max-age=42\b/);
  });

  test('CACHE-04 If-None-Match with the ETag is 304 without a body; another ETag is 200', async () => {
    const etag = (await get(server)).headers.get('etag') as string;
    const again = await get(server);
    assert.equal(again.headers.get('etag'), etag, 'the ETag is stable');
    const revalidated = await get(server, { 'if-none-match': etag });
    assert.equal(revalidated.status, 304);
    assert.equal(await revalidated.text(), '');
    assert.equal(revalidated.headers.get('etag'), etag);
    assert.equal((await get(server, { 'if-none-match': `"other", ${etag}` })).status, 304);
    assert.equal((await get(server, { 'if-none-match': '"stale"' })).status, 200);
  });

  test('the card is served without an A2A-Version header and to HEAD; other verbs are 405', async () => {
    assert.equal((await get(server, {}, 'HEAD')).status, 200);
    const post = await get(server, {}, 'POST');
    assert.equal(post.status, 405);
    assert.match(post.headers.get('allow') ?? '', /GET/);
  });

  test('a wrong verb on the card is InvalidRequestError with ErrorInfo and code 405, as on the bindings', async () => {
    for (const method of ['POST', 'DELETE']) {
      const { error } = (await (await get(server, {}, method)).json()) as Json;
      assert.deepEqual([error.code, error.status], [405, 'INVALID_ARGUMENT'], method);
      assert.deepEqual([error.details?.[0]?.['@type'], error.details?.[0]?.reason], [ERROR_INFO_TYPE, 'INVALID_REQUEST'], method);
    }
  });

  test('CARD-03 every REQUIRED card member is present and well-typed', async () => {
    const card = (await (await get(server)).json()) as Json;
    for (const key of ['name', 'description', 'version']) assert.match(card[key], /\S/, key);
    assert.equal(typeof card.capabilities, 'object');
    for (const key of ['defaultInputModes', 'defaultOutputModes']) {
      assert.ok(Array.isArray(card[key]) && card[key].length > 0, key);
      for (const mode of card[key]) assert.match(mode, /^[\w.+-]+\/[\w.+*-]+$/, `${key}: ${mode}`);
    }
    assert.ok(Array.isArray(card.skills) && card.skills.length > 0);
    for (const skill of card.skills) {
      for (const key of ['id', 'name', 'description']) assert.match(skill[key], /\S/, `skill ${skill.id}.${key}`);
      assert.ok(Array.isArray(skill.tags) && skill.tags.length > 0, `skill ${skill.id}.tags`);
    }
    assert.equal(new Set(card.skills.map((s: Json) => s.id)).size, card.skills.length, 'skill ids are unique');
    assert.ok(Array.isArray(card.supportedInterfaces) && card.supportedInterfaces.length > 0);
    for (const i of card.supportedInterfaces) for (const key of ['url', 'protocolBinding', 'protocolVersion']) assert.match(i[key], /\S/, key);
    for (const legacy of ['url', 'preferredTransport', 'additionalInterfaces', 'protocolVersion', 'supportsAuthenticatedExtendedCard', 'kind']) {
      assert.equal(card[legacy], undefined, `no 0.3 member ${legacy}`);
    }
    assert.equal(card.capabilities.streaming, true);
    assert.equal(card.capabilities.pushNotifications, true, 'the demo agent declares push notifications');
  });

  test('JSON-09 a capability explicitly set to false is kept in the served card', async () => {
    const card = (await (await get(noPush)).json()) as Json;
    assert.equal(card.capabilities.pushNotifications, false, 'JSON-09: explicitly set false is kept');
    assert.equal(card.capabilities.streaming, true);
  });

  test('OPS-02 CARD-04 supportedInterfaces lists JSONRPC then HTTP+JSON with absolute URLs and protocolVersion 1.0', async () => {
    const card = (await (await get(server)).json()) as Json;
    assert.deepEqual(
      card.supportedInterfaces.map((i: Json) => [i.protocolBinding, i.protocolVersion]),
      [
        ['JSONRPC', '1.0'],
        ['HTTP+JSON', '1.0'],
      ],
    );
    for (const i of card.supportedInterfaces) {
      const url = new URL(i.url);
      assert.equal(url.origin, server.url, 'absolute, on this server');
      assert.equal(i.tenant, undefined);
    }
  });

  test('CARD-05 the advertised URLs are where the bindings answer', async () => {
    const card = (await (await get(server)).json()) as Json;
    const [rpc, rest] = card.supportedInterfaces;
    assert.equal(ok(await jsonRpcBinding(rpc.url).call('listTasks', { pageSize: 3 })).pageSize, 3);
    assert.equal(ok(await restBinding(rest.url).call('listTasks', { pageSize: 4 })).pageSize, 4);
  });
});

test('compat: without A2A-Version the card is the 1.0 card plus the 0.3 top-level members; with 0.3 it is the 0.3 card', async () => {
  const s = await startServer();
  try {
    const plain = await fetch(s.url + PATH);
    assert.equal(plain.headers.get('vary'), 'A2A-Version');
    const hybrid = (await plain.json()) as Json;
    assert.deepEqual(hybrid.supportedInterfaces, s.card.supportedInterfaces, 'every 1.0 member is there');
    assert.match(hybrid.url, /\/a2a\/jsonrpc$/);
    assert.equal(hybrid.preferredTransport, 'JSONRPC');
    const v03 = (await (await fetch(s.url + PATH, { headers: { 'a2a-version': '0.3' } })).json()) as Json;
    assert.equal(v03.supportedInterfaces, undefined);
    assert.equal(v03.protocolVersion, '0.3.0');
    const etags = new Set(await Promise.all([undefined, '0.3', '1.0'].map(async (v) => (await fetch(s.url + PATH, { headers: v ? { 'a2a-version': v } : {} })).headers.get('etag'))));
    assert.equal(etags.size, 3, 'each variant has its own ETag');
  } finally {
    await s.close();
  }
});
