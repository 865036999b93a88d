/**
 * `a2a serve --auth-config FILE --tls-ca FILE` as a real process: an agent module whose card
 * requires an API key or a client certificate; the config file holds the key's SHA-256 and the
 * client CA (relative to the file). Plus the flags' usage errors.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { runToExit, startServe, type A2AProcess, type ServeUrls } from '../cli/cliHelpers.js';
import { hasOpenssl, makePki, type TestPki } from './support.js';

const skip = hasOpenssl() ? false : 'openssl is not available';
const KEY = 'cli-key-5d2e9a';
let pki: TestPki;
let proc: A2AProcess | undefined;
let urls: ServeUrls;

before(async () => {
  if (skip) return;
  pki = makePki();
  const agentFile = join(pki.dir, 'agent.mts');
  writeFileSync(
    agentFile,
    `export default {
  card: {
    name: 'secured', description: 'd', version: '1', capabilities: { streaming: false },
    defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [],
    securitySchemes: { apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } }, mtls: { mtlsSecurityScheme: {} } },
    securityRequirements: [{ schemes: { apiKey: {} } }, { schemes: { mtls: {} } }],
  },
  executor: { async execute(ctx, task) { await task.reply('hello ' + (ctx.principal ? ctx.principal.id : '-')); } },
};
`,
  );
  writeFileSync(join(pki.dir, 'ca.pem'), pki.caCert);
  writeFileSync(join(pki.dir, 'server.pem'), pki.serverCert);
  writeFileSync(join(pki.dir, 'server.key'), pki.serverKey);
  const sha = createHash('sha256').update(KEY).digest('hex');
  writeFileSync(join(pki.dir, 'auth.json'), JSON.stringify({ apiKey: { keys: { [`sha256:${sha}`]: 'cli-client' } }, mtls: { ca: 'ca.pem' } }));
  const started = await startServe([
    '--agent', agentFile,
    '--auth-config', join(pki.dir, 'auth.json'),
    '--tls-cert', join(pki.dir, 'server.pem'),
    '--tls-key', join(pki.dir, 'server.key'),
  ]);
  proc = started.proc;
  urls = started.urls;
});

after(() => proc?.kill());

function send(options: { headers?: Record<string, string>; cert?: string; key?: string }): Promise<{ status: number; text: string; challenge: string | undefined }> {
  const url = new URL(urls.jsonrpc as string);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `c-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'x' }] } } });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: '127.0.0.1',
        port: url.port,
        path: url.pathname,
        method: 'POST',
        ca: pki.caCert,
        servername: 'localhost',
        agent: false,
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...options.headers },
        ...(options.cert ? { cert: options.cert, key: options.key } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, challenge: res.headers['www-authenticate'] }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('the API key from the config file authenticates; so does a client certificate of --auth-config mtls.ca', { skip }, async () => {
  const byKey = await send({ headers: { 'x-api-key': KEY } });
  assert.equal(byKey.status, 200, byKey.text);
  assert.match(byKey.text, /hello cli-client/);
  const byCert = await send({ cert: pki.clientCert, key: pki.clientKey });
  assert.equal(byCert.status, 200, byCert.text);
  assert.match(byCert.text, /hello O=Example,CN=alice/);
  const none = await send({});
  assert.equal(none.status, 401);
  assert.match(none.challenge ?? '', /APIKey realm="a2a", in="header", name="X-Api-Key"/);
});

test('usage errors: --tls-ca without a TLS listener, an unreadable --auth-config', { skip }, async () => {
  const noTls = await runToExit(['serve', '--store', 'memory', '--port', '0', '--tls-ca', join(pki.dir, 'ca.pem')]);
  assert.equal(noTls.code, 2, noTls.stderr);
  assert.match(noTls.stderr, /need a TLS listener/);
  const bad = join(pki.dir, 'bad.json');
  writeFileSync(bad, '[1]');
  const badConfig = await runToExit(['serve', '--store', 'memory', '--port', '0', '--auth-config', bad]);
  assert.equal(badConfig.code, 2, badConfig.stderr);
  assert.match(badConfig.stderr, /expected a JSON object/);
});
