/**
 * API keys in a header, the query string and a cookie (the card's apiKeySecurityScheme says
 * where), over JSON-RPC, HTTP+JSON and gRPC (metadata; gRPC has no query string), plus the
 * extended card of a card without requirements (XCARD-03) and a card with no security at all.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { assertAuthFailure, message, replyText, startSecured, type SecuredAgent } from './support.js';

const HEADER_KEY = 'hk-4f1c0a7e9b2d';
const QUERY_KEY = 'qk-77aa01';
const COOKIE_KEY = 'ck-9e8d7c';
let server: SecuredAgent;

before(async () => {
  server = await startSecured({
    securitySchemes: {
      header: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } },
      query: { apiKeySecurityScheme: { location: 'query', name: 'api_key' } },
      cookie: { apiKeySecurityScheme: { location: 'cookie', name: 'a2a_key' } },
    },
    securityRequirements: [{ schemes: { header: {} } }, { schemes: { query: {} } }, { schemes: { cookie: {} } }],
    auth: {
      schemes: {
        // The config may hold only the key's SHA-256.
        header: { keys: { [`sha256:${createHash('sha256').update(HEADER_KEY).digest('hex')}`]: 'header-client' } },
        query: { keys: { [QUERY_KEY]: 'query-client' } },
        cookie: { keys: { [COOKIE_KEY]: { id: 'cookie-client', scopes: ['admin'] } } },
      },
    },
  });
});

after(() => server?.close());

test('a key in the header authenticates on every binding (gRPC: metadata)', async () => {
  for (const b of server.bindings) {
    const r = await b.call('sendMessage', message(), { headers: { 'X-Api-Key': HEADER_KEY } });
    assert.ok(r.ok, `${b.name}: ${JSON.stringify(!r.ok && r.error.raw)}`);
    assert.equal(replyText(r.result), 'principal=header-client scheme=header scopes=', b.name);
  }
});

test('a key in the query string authenticates over JSON-RPC and HTTP+JSON, and is not a request field', async () => {
  for (const b of server.bindings.slice(0, 2)) {
    const r = await b.call('sendMessage', message(), { query: { api_key: QUERY_KEY } });
    assert.ok(r.ok, `${b.name}: ${JSON.stringify(!r.ok && r.error.raw)}`);
    assert.equal(replyText(r.result), 'principal=query-client scheme=query scopes=', b.name);
  }
  // REST GET: query parameters become request fields, except the credential.
  const rest = server.bindings[1]!;
  const list = await rest.call('listTasks', {}, { query: { api_key: QUERY_KEY } });
  assert.ok(list.ok, JSON.stringify(!list.ok && list.error.raw));
});

test('a key in a cookie authenticates on every binding', async () => {
  for (const b of server.bindings) {
    const r = await b.call('sendMessage', message(), { headers: { cookie: `theme=dark; a2a_key=${COOKIE_KEY}` } });
    assert.ok(r.ok, `${b.name}: ${JSON.stringify(!r.ok && r.error.raw)}`);
    assert.equal(replyText(r.result), 'principal=cookie-client scheme=cookie scopes=admin', b.name);
  }
});

test('a wrong key, or a key in the wrong place: 401 with APIKey challenges; the key is not echoed', async () => {
  for (const b of server.bindings) {
    const wrong = await b.call('sendMessage', message(), { headers: { 'X-Api-Key': 'not-a-key-123' } });
    const error = assertAuthFailure(b, wrong, { reason: 'UNAUTHENTICATED', challenge: /APIKey realm="a2a", in="header", name="X-Api-Key"/ });
    assert.match(error.message, /API key is not accepted/);
    assert.ok(!JSON.stringify(error.raw).includes('not-a-key-123'));
    // The query key sent as a header is no credential at all.
    const misplaced = await b.call('sendMessage', message(), { headers: { 'X-Api-Key': QUERY_KEY } });
    assertAuthFailure(b, misplaced, { reason: 'UNAUTHENTICATED' });
    const none = await b.call('sendMessage', message());
    const missing = assertAuthFailure(b, none, { reason: 'UNAUTHENTICATED', challenge: /in="cookie", name="a2a_key"/ });
    assert.match(missing.message, /header or query or cookie/);
  }
  assert.deepEqual(server.errors, []);
});

test('no requirements on the card: calls are anonymous, but the extended card needs a configured scheme (XCARD-03)', async () => {
  const open = await startSecured({
    extendedCard: true,
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
    auth: { schemes: { key: { keys: { [HEADER_KEY]: 'vip' } } } },
  });
  try {
    for (const b of open.bindings) {
      const r = await b.call('sendMessage', message());
      assert.ok(r.ok, b.name);
      assert.equal(replyText(r.result), 'principal=-');
      assertAuthFailure(b, await b.call('getExtendedAgentCard', {}), { reason: 'UNAUTHENTICATED', challenge: /APIKey/ });
      const card = await b.call('getExtendedAgentCard', {}, { headers: { 'x-api-key': HEADER_KEY } });
      assert.ok(card.ok, b.name);
      assert.match(card.result.name, /\(extended\)$/);
    }
  } finally {
    await open.close();
  }
});

test('a card with requirements but no auth settings refuses to start; a verifier for an undeclared scheme too', async () => {
  await assert.rejects(
    startSecured({
      securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
      securityRequirements: [{ schemes: { key: {} } }],
      auth: { schemes: {} },
    }),
    /requires scheme "key"/,
  );
  await assert.rejects(
    startSecured({
      securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
      auth: { schemes: { typo: { keys: {} } } },
    }),
    /"typo" is not one of the card's securitySchemes/,
  );
});
