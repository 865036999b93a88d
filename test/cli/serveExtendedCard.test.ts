/**
 * XCARD-05 / CARD-03 with a real `a2a serve --agent agent.mts` process: a module whose
 * `extendedCard` is `(ctx) => ({ ...card, description: 'extended for ' + ctx.principal.id })`
 * answers each authenticated caller that complete card, with the served interfaces, on JSON-RPC,
 * REST and gRPC and to 0.3 clients (it used to answer `{"supportedInterfaces":[...]}` alone); a
 * module whose `extendedCard` is an incomplete card makes `a2a serve` exit 2 naming the module
 * and the fields, as an incomplete `card` does.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { grpcBinding } from '../grpc/grpcTestBinding.js';
import { restBinding } from '../support/bindings.js';
import { jsonRpcCaller } from '../auth/support.js';
import { runToExit, startServe, type A2AProcess, type ServeUrls } from './cliHelpers.js';

const KEY = 'xcard-cli-key-3f9b2e';
const dir = mkdtempSync(join(tmpdir(), 'a2a-xcard-'));
let proc: A2AProcess | undefined;
let urls: ServeUrls & { grpc?: string };

const CARD = `{
  name: 'xcard', description: 'public', version: '1', capabilities: { streaming: false, extendedAgentCard: true },
  defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [],
  securitySchemes: { apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
  securityRequirements: [{ schemes: { apiKey: {} } }],
}`;
const EXECUTOR = `{ async execute(ctx, task) { await task.reply('hello'); } }`;

before(async () => {
  writeFileSync(
    join(dir, 'agent.mts'),
    `const card = ${CARD};
export default { card, executor: ${EXECUTOR}, extendedCard: (ctx) => ({ ...card, description: 'extended for ' + ctx.principal.id }) };
`,
  );
  const sha = createHash('sha256').update(KEY).digest('hex');
  writeFileSync(join(dir, 'auth.json'), JSON.stringify({ apiKey: { keys: { [`sha256:${sha}`]: 'cli-caller' } } }));
  const started = await startServe(['--agent', join(dir, 'agent.mts'), '--auth-config', join(dir, 'auth.json'), '--grpc-port', '0']);
  proc = started.proc;
  urls = started.urls;
});

after(() => {
  proc?.kill();
  rmSync(dir, { recursive: true, force: true });
});

test('XCARD-05 a2a serve --agent agent.mts with extendedCard as (ctx) => card: the caller\'s complete card on JSON-RPC, REST and gRPC, and to 0.3 clients', async () => {
  const publicCard = (await (await fetch(urls.card, { headers: { 'a2a-version': '1.0' } })).json()) as { supportedInterfaces: { protocolBinding: string; url: string }[] };
  const grpcAddress = publicCard.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')?.url as string;
  assert.ok(grpcAddress, JSON.stringify(publicCard));
  const grpc = grpcBinding(grpcAddress.replace(/^localhost:/, '127.0.0.1:'));
  for (const b of [jsonRpcCaller(urls.jsonrpc), restBinding(urls.rest), grpc]) {
    const r = await b.call('getExtendedAgentCard', {}, { headers: { 'x-api-key': KEY } });
    assert.ok(r.ok, `${b.name}: ${JSON.stringify(r.ok ? '' : r.error.raw)}`);
    assert.equal(r.result.name, 'xcard', b.name);
    assert.equal(r.result.description, 'extended for cli-caller', b.name);
    assert.equal(r.result.version, '1', b.name);
    assert.deepEqual(r.result.supportedInterfaces, publicCard.supportedInterfaces, b.name);
  }
  // A 0.3 client (no A2A-Version): the 0.3 form of the same card.
  const res = await fetch(urls.jsonrpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agent/getAuthenticatedExtendedCard' }),
  });
  const body = (await res.json()) as { result?: { description: string; url: string; protocolVersion: string } };
  assert.equal(body.result?.description, 'extended for cli-caller', JSON.stringify(body));
  assert.equal(body.result?.url, urls.jsonrpc);
  const rest03 = await fetch(`${urls.rest}/v1/card`, { headers: { 'x-api-key': KEY } });
  assert.equal(rest03.status, 200);
  assert.equal(((await rest03.json()) as { description: string }).description, 'extended for cli-caller');
});

test('XCARD-05 CARD-03 a2a serve --agent with an incomplete extendedCard card → exit 2, one line naming the module and the fields', async () => {
  const file = join(dir, 'incomplete.mts');
  writeFileSync(file, `const card = ${CARD};\nexport default { card, executor: ${EXECUTOR}, extendedCard: { name: 'xcard', capabilities: {} } };\n`);
  const { code, stderr } = await runToExit(['serve', '--store', 'memory', '--port', '0', '--agent', file, '--auth-config', join(dir, 'auth.json')]);
  assert.equal(code, 2, stderr);
  assert.match(stderr, /--agent .*incomplete\.mts: extendedCard\.description is required; extendedCard\.version is required; .*extendedCard\.skills is required/);
  assert.doesNotMatch(stderr, /supportedInterfaces/);
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
});
