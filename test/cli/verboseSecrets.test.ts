/**
 * R23: `a2a … --verbose --api-key KEY` against a real agent whose card puts the API key in a
 * header or query parameter not named like a credential (`X-Access`, `sig`): the key works (the
 * agent names the caller) and never appears in the wire log — the names the card declares are
 * masked, and so is the value the CLI was given, wherever it would show.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runA2A, startServe } from './cliHelpers.js';
import { startSecured, type SecuredAgent } from '../auth/support.js';

const KEY = 'alice-key-SECRET123';
let header: SecuredAgent;
let query: SecuredAgent;

before(async () => {
  const keys = { keys: { [KEY]: 'alice', k9: 'short' } };
  header = await startSecured({
    securitySchemes: { access: { apiKeySecurityScheme: { location: 'header', name: 'X-Access' } } },
    securityRequirements: [{ schemes: { access: {} } }],
    auth: { schemes: { access: keys } },
  });
  query = await startSecured({
    securitySchemes: { signed: { apiKeySecurityScheme: { location: 'query', name: 'sig' } } },
    securityRequirements: [{ schemes: { signed: {} } }],
    auth: { schemes: { signed: keys } },
  });
});
after(async () => {
  await header?.close();
  await query?.close();
});

async function run(args: string[]) {
  const proc = runA2A(args, { A2A_TOKEN: '', NO_COLOR: '1' });
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout, stderr: proc.stderr };
}

describe('--verbose never shows the API key (R23)', { concurrency: 2 }, () => {
  test('card scheme {location: header, name: X-Access}: the header is shown as ***', async () => {
    const r = await run(['send', header.agent.url, 'hi', '--verbose', '--api-key', KEY]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /principal=alice scheme=access/);
    assert.match(r.stderr, /^> x-access: \*\*\*$/m);
    assert.ok(!r.stderr.includes('SECRET123'), r.stderr);
    assert.ok(!r.stdout.includes('SECRET123'));
  });

  test('card scheme {location: query, name: sig}: the query parameter is shown as ***', async () => {
    const r = await run(['send', query.agent.url, 'hi', '--verbose', '--api-key', KEY]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /principal=alice scheme=signed/);
    assert.match(r.stderr, /^> POST http:\/\/\S+\/a2a\/jsonrpc\?sig=\*\*\*$/m);
    assert.ok(!r.stderr.includes('SECRET123'), r.stderr);
  });

  test('masked by the name the card declares, even for a key too short to mask by value', async () => {
    const r = await run(['send', header.agent.url, 'hi', '--verbose', '--api-key', 'k9']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /principal=short/);
    assert.match(r.stderr, /^> x-access: \*\*\*$/m);
    assert.doesNotMatch(r.stderr, /x-access: k9/);
    const q = await run(['send', query.agent.url, 'hi', '--verbose', '--api-key', 'k9']);
    assert.equal(q.code, 0, q.stderr);
    assert.match(q.stderr, /\?sig=\*\*\*$/m);
    assert.doesNotMatch(q.stderr, /sig=k9/);
  });
});

describe('--verbose over gRPC masks push secrets in the bodies it shows (R23)', () => {
  test('a2a push create --binding grpc --token … --auth "Bearer …" --verbose: neither value appears', async () => {
    const { proc, urls } = await startServe(['--grpc-port', '0', '--allow-private-webhooks']);
    try {
      const sent = await run(['send', urls.card.replace('/.well-known/agent-card.json', ''), 'hi', '--json']);
      assert.equal(sent.code, 0, sent.stderr);
      const taskId = (JSON.parse(sent.stdout) as { task: { id: string } }).task.id;
      const r = await run(['push', 'create', urls.card.replace('/.well-known/agent-card.json', ''), taskId, 'http://127.0.0.1:9999/hook', '--binding', 'grpc', '--token', 'PUSHTOKEN-1234', '--auth', 'Bearer PUSHCRED-5678', '--verbose']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /createTaskPushNotificationConfig via GRPC/);
      assert.match(r.stderr, /"token":"\*\*\*"/, 'the request body is shown, masked');
      assert.ok(!r.stderr.includes('PUSHTOKEN-1234') && !r.stderr.includes('PUSHCRED-5678'), r.stderr);
    } finally {
      proc.kill();
    }
  });
});
