/**
 * R23 secrets stay secret (issue 8): `a2a serve --allow-private-webhooks` runs as a child
 * process with API-key (header and query) and bearer-JWT security, a push key, a webhook
 * signing secret and gRPC; a representative set of operations then hands it every kind of
 * secret — accepted and refused credentials over all three bindings, push configs with tokens
 * and credentials (created, listed, refused), webhook deliveries that fail (the receiver even
 * echoes the credentials it got) until dead-lettered, an agent that throws — and every secret
 * is grepped for in the child's stdout and stderr (where its onError handlers write) and in
 * every error body: 0 hits.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { fromJson, toBinary } from '@bufbuild/protobuf';
import { GetTaskRequestSchema } from '../../src/gen/a2a_pb.js';
import { runA2A, type A2AProcess } from '../cli/cliHelpers.js';
import { rawCall } from '../grpc/wire.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';
import type { Json } from '../support/bindings.js';

const tag = (name: string) => `${name}-${randomBytes(12).toString('hex')}`;
const SECRETS = {
  apiKey: tag('apikey'),
  queryKey: tag('querykey'),
  wrongApiKey: tag('wrongkey'),
  wrongBearer: tag('wrongbearer'),
  pushToken: tag('pushtoken'),
  pushCredentials: tag('pushcred'),
  refusedCredentials: tag('refusedcred'),
  userinfoPassword: tag('userinfopw'),
  pushKey: tag('pushkey'),
  webhookSecretBytes: randomBytes(32).toString('base64'),
  grpcBearer: tag('grpcbearer'),
  grpcApiKey: tag('grpcapikey'),
};
const ISSUER = 'https://id.example';
const AUDIENCE = 'https://agent.example';
const sha256 = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

const AGENT_MODULE = `
export default {
  card: {
    name: 'secrets test agent',
    description: 'Completes, or throws when the text starts with "throw".',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
    securitySchemes: {
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      qkey: { apiKeySecurityScheme: { location: 'query', name: 'api_key' } },
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    },
    securityRequirements: [{ schemes: { key: { list: [] } } }, { schemes: { qkey: { list: [] } } }, { schemes: { bearer: { list: [] } } }],
  },
  executor: {
    async execute(ctx, task) {
      if (ctx.text.startsWith('throw')) throw new Error('the agent failed on purpose');
      if (ctx.text.startsWith('slow')) await new Promise((r) => setTimeout(r, 300));
      await task.addArtifact('ok ' + ctx.text);
      await task.complete();
    },
  },
};
`;

describe('R23 no secret reaches the logs or an error body (a2a serve as a child process)', () => {
  let dir: string;
  let proc: A2AProcess;
  let urls: { jsonrpc: string; rest: string; grpc: string; card: string };
  let failing: Receiver;
  let bearer: string;
  let wrongAudienceBearer: string;
  /** Every non-2xx body and every JSON-RPC / mid-stream error seen by the client. */
  const errorBodies: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'a2a-secrets-'));
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    const mint = (audience: string) =>
      new SignJWT({ scope: 'a2a' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setAudience(audience).setSubject('alice').setIssuedAt().setExpirationTime('10m').sign(privateKey);
    bearer = await mint(AUDIENCE);
    wrongAudienceBearer = await mint('https://other.example');
    writeFileSync(join(dir, 'agent.mjs'), AGENT_MODULE);
    writeFileSync(
      join(dir, 'auth.json'),
      JSON.stringify({
        key: { keys: { [sha256(SECRETS.apiKey)]: 'alice', [sha256(SECRETS.grpcApiKey)]: 'grpc-alice' } },
        qkey: { keys: { [sha256(SECRETS.queryKey)]: 'bob' } },
        bearer: { jwks: { keys: [jwk] }, issuer: ISSUER, audience: AUDIENCE },
      }),
    );
    // The receiver refuses every delivery and echoes what it was sent, credentials included.
    failing = await startReceiver({
      respond: (req) => ({ status: 500, headers: { 'content-type': 'text/plain' }, body: `refused; you sent authorization=${req.headers.authorization} token=${req.headers['x-a2a-notification-token']}` }),
    });
    proc = runA2A(
      [
        'serve', '--port', '0', '--json', '--store', 'memory', '--grpc-port', '0', '--allow-private-webhooks',
        '--agent', join(dir, 'agent.mjs'), '--auth-config', join(dir, 'auth.json'),
        '--push-key', SECRETS.pushKey, '--webhook-secret', `whsec_${SECRETS.webhookSecretBytes}`,
        '--push-max-attempts', '2', '--push-backoff-ms', '20',
      ],
      {},
    );
    urls = JSON.parse(await proc.waitForLine(/^\{.*\}$/)) as typeof urls;
  });

  after(async () => {
    proc?.kill();
    await failing?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const headerText = (h: Headers): string => {
    const out: string[] = [];
    h.forEach((v, k) => out.push(`${k}: ${v}`));
    return out.join('; ');
  };
  const rpc = async (method: string, params: Json, headers: Record<string, string> = {}, url?: string) => {
    const res = await fetch(url ?? urls.jsonrpc, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"error"')) errorBodies.push(`JSON-RPC ${method} → ${res.status} ${headerText(res.headers)} ${text}`);
    return { status: res.status, body: (text.startsWith('{') ? JSON.parse(text) : text) as Json };
  };
  const rest = async (method: string, path: string, init: { body?: Json; headers?: Record<string, string> } = {}) => {
    const res = await fetch(urls.rest + path, {
      method,
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...init.headers },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await res.text();
    // Only the answer is recorded (the request path may hold a query key).
    if (res.status >= 300 || text.includes('"error"')) errorBodies.push(`REST ${method} → ${res.status} ${headerText(res.headers)} ${text}`);
    return { status: res.status, body: (text.startsWith('{') ? JSON.parse(text) : text) as Json };
  };
  const msg = (text: string) => ({ messageId: `s-${randomBytes(6).toString('hex')}`, role: 'ROLE_USER', parts: [{ text }] });
  const pushConfig = (url: string) => ({ url, token: SECRETS.pushToken, authentication: { scheme: 'Bearer', credentials: SECRETS.pushCredentials } });

  test('refused credentials: wrong API keys (header, query), wrong and misaddressed bearer tokens, on every binding', async () => {
    const asKey = { 'x-api-key': SECRETS.apiKey };
    assert.equal((await rpc('ListTasks', {}, { 'x-api-key': SECRETS.wrongApiKey })).status, 401);
    assert.equal((await rpc('ListTasks', {}, { authorization: `Bearer ${SECRETS.wrongBearer}` })).status, 401);
    assert.equal((await rpc('ListTasks', {}, { authorization: `Bearer ${wrongAudienceBearer}` })).status, 401);
    assert.equal((await rpc('ListTasks', {}, {}, `${urls.jsonrpc}?api_key=${SECRETS.wrongApiKey}`)).status, 401);
    assert.equal((await rest('GET', `/tasks?api_key=${SECRETS.wrongApiKey}`)).status, 401);
    assert.equal((await rest('GET', '/tasks', { headers: { authorization: `Basic ${Buffer.from(`u:${SECRETS.wrongBearer}`).toString('base64')}` } })).status, 401);
    // Accepted: a header key, a query key, a bearer JWT.
    assert.equal((await rpc('ListTasks', {}, asKey)).status, 200);
    assert.equal((await rpc('ListTasks', {}, {}, `${urls.jsonrpc}?api_key=${SECRETS.queryKey}`)).status, 200);
    assert.equal((await rest('GET', '/tasks', { headers: { authorization: `Bearer ${bearer}` } })).status, 200);
    const body = toBinary(GetTaskRequestSchema, fromJson(GetTaskRequestSchema, { id: 'nope' }));
    const grpcCredentials: Record<string, string>[] = [{ authorization: `Bearer ${SECRETS.grpcBearer}` }, { 'x-api-key': SECRETS.wrongApiKey }, { 'x-api-key': SECRETS.grpcApiKey }];
    for (const metadata of grpcCredentials) {
      const out = await rawCall(urls.grpc, 'GetTask', { body, metadata: { 'a2a-version': '1.0', ...metadata } });
      errorBodies.push(`gRPC GetTask → ${out.code} ${out.details} ${JSON.stringify(out.trailers.toJSON())}`);
    }
  });

  test('push configs with tokens and credentials: created, read back, refused; deliveries fail until dead-lettered', async () => {
    const asKey = { 'x-api-key': SECRETS.apiKey };
    const sent = await rpc('SendMessage', { message: msg('slow hi'), configuration: { returnImmediately: true, taskPushNotificationConfig: pushConfig(failing.url) } }, asKey);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const taskId = sent.body.result.task.id;
    const created = await rest('POST', `/tasks/${taskId}/pushNotificationConfigs`, { body: pushConfig(`${failing.url}/second`), headers: asKey });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    await rest('GET', `/tasks/${taskId}/pushNotificationConfigs`, { headers: asKey });
    // Refused configs whose secrets must not be echoed in the error.
    for (const url of [`http://user:${SECRETS.userinfoPassword}@127.0.0.1:1/hook`, 'ftp://example.com/hook', 'not a url']) {
      const refused = await rpc('CreateTaskPushNotificationConfig', { taskId, url, token: SECRETS.refusedCredentials, authentication: { scheme: 'Bearer', credentials: SECRETS.refusedCredentials } }, asKey);
      assert.ok(refused.body.error, `${url} is refused`);
    }
    await rpc('CreateTaskPushNotificationConfig', { taskId: 'no-such-task', url: failing.url, token: SECRETS.refusedCredentials, authentication: { scheme: 'Bearer', credentials: SECRETS.refusedCredentials } }, asKey);
    // An agent failure while a push config is attached.
    await rpc('SendMessage', { message: msg('throw now'), configuration: { taskPushNotificationConfig: pushConfig(failing.url) } }, asKey);
    // The first config's deliveries fail twice each (max attempts 2) and become dead letters.
    // (The REST-created /second config got no deliveries in this CLI run; see the report.)
    await failing.waitUntil((all) => all.filter((r) => !r.path.endsWith('/second')).length >= 4, 15_000);
    assert.ok(failing.requests.some((r) => r.headers.authorization === `Bearer ${SECRETS.pushCredentials}`), 'the configured credentials were sent (so they were in play)');
    await new Promise((r) => setTimeout(r, 300)); // let the dead-letter log lines be written
  });

  test('the child process output and the error bodies contain none of the secrets', async () => {
    proc.kill('SIGTERM');
    await proc.exited;
    const output = `${proc.stdout}\n${proc.stderr}`;
    assert.match(proc.stderr, /push to .*attempt/, 'the failing deliveries were logged (the capture works)');
    const secrets: Record<string, string> = { ...SECRETS, bearer, wrongAudienceBearer, bearerSignature: bearer.split('.')[2] as string };
    const hits = Object.entries(secrets).flatMap(([name, secret]) => [
      ...(output.includes(secret) ? [`${name} in the server output`] : []),
      ...errorBodies.filter((b) => b.includes(secret)).map((b) => `${name} in an error body: ${b.slice(0, 300)}`),
    ]);
    assert.deepEqual(hits, [], `server output:\n${output.slice(0, 4000)}`);
    assert.ok(errorBodies.length >= 10, `error bodies were collected: ${errorBodies.length}`);
  });
});

describe('R23 a webhook URL with a secret in its path or query is not logged in full', () => {
  test('a2a serve logs failed deliveries without the URL path and query', async () => {
    const secret = tag('urlsecret');
    const pathSecret = tag('pathsecret');
    const hook = await startReceiver({ respond: () => 503 });
    const p = runA2A(['serve', '--port', '0', '--json', '--store', 'memory', '--allow-private-webhooks', '--push-max-attempts', '1'], {});
    try {
      const u = JSON.parse(await p.waitForLine(/^\{.*\}$/)) as { jsonrpc: string };
      const res = await fetch(u.jsonrpc, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { ...{ message: { messageId: tag('m'), role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, configuration: { taskPushNotificationConfig: { url: `${hook.url}/services/T0/${pathSecret}?sig=${secret}` } } } }),
      });
      assert.equal(res.status, 200);
      await hook.waitFor(1, 5000);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      p.kill('SIGTERM');
      await p.exited;
      await hook.close();
    }
    assert.match(p.stderr, /push to/);
    assert.equal(p.stderr.includes(secret), false, p.stderr);
    assert.equal(p.stderr.includes(pathSecret), false, p.stderr);
    assert.ok(p.stderr.includes(`push to ${new URL(hook.url).origin}/…`), p.stderr);
  });
});

