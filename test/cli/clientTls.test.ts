/**
 * SEC-01 mutual TLS from the client commands: `--cert FILE --key FILE` present a client
 * certificate and `--cacert FILE` trusts the agent's CA, over JSON-RPC, HTTP+JSON (an event
 * stream included) and gRPC, against a real `a2a serve` whose card requires an mtls scheme
 * (`--auth-config {"mtls":{"ca":…}}`, `--tls-cert/--tls-key`, `--grpc-port`). The files are
 * checked before any request (exit 2), and the key never shows, not even with --verbose.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hasOpenssl, makePki, type TestPki } from '../auth/support.js';
import { runToExit, startServe, type A2AProcess } from './cliHelpers.js';

const skip = hasOpenssl() ? false : 'openssl is not available';
let pki: TestPki;
let proc: A2AProcess | undefined;
let url = '';
const file = (name: string) => join(pki.dir, name);

before(async () => {
  if (skip) return;
  pki = makePki();
  writeFileSync(
    file('agent.mts'),
    `export default {
  card: {
    name: 'mtls only', description: 'd', version: '1', capabilities: { streaming: true },
    defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [],
    securitySchemes: { mtls: { mtlsSecurityScheme: {} } },
    securityRequirements: [{ schemes: { mtls: {} } }],
  },
  executor: { async execute(ctx, task) { await task.reply('hello ' + (ctx.principal ? ctx.principal.id : '-')); } },
};
`,
  );
  writeFileSync(file('ca.pem'), pki.caCert);
  writeFileSync(file('auth.json'), JSON.stringify({ mtls: { ca: 'ca.pem' } }));
  const started = await startServe(['--agent', file('agent.mts'), '--auth-config', file('auth.json'), '--tls-cert', file('server.pem'), '--tls-key', file('server.key'), '--grpc-port', '0']);
  proc = started.proc;
  url = new URL(started.urls.card).origin;
});
after(() => {
  proc?.kill();
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

const CERT = () => ['--cacert', file('ca.pem'), '--cert', file('client.pem'), '--key', file('client.key')];

describe('--cert/--key/--cacert', { skip }, () => {
  for (const binding of ['jsonrpc', 'rest', 'grpc']) {
    test(`SEC-01 --binding ${binding}: the client certificate authenticates (exit 0); without it UNAUTHENTICATED (exit 3)`, async () => {
      const ok = await runToExit(['send', url, 'hi', '--binding', binding, '--json', ...CERT()]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /hello O=Example,CN=alice/);
      const none = await runToExit(['send', url, 'hi', '--binding', binding, '--json', '--cacert', file('ca.pem')]);
      assert.equal(none.code, 3, none.stderr);
      assert.match(none.stderr, /UNAUTHENTICATED/);
    });
  }

  test('SEC-01 an event stream and the card over mutual TLS; --verbose never shows the key', async () => {
    const stream = await runToExit(['stream', url, 'hi', '--binding', 'rest', '--json', '--verbose', ...CERT()]);
    assert.equal(stream.code, 0, stream.stderr);
    assert.match(stream.stdout, /hello O=Example,CN=alice/);
    assert.match(stream.stderr, /text\/event-stream/);
    const card = await runToExit(['card', url, '--json', '--verbose', ...CERT()]);
    assert.equal(card.code, 0, card.stderr);
    assert.equal((JSON.parse(card.stdout) as { name: string }).name, 'mtls only');
    const key = readFileSync(file('client.key'), 'utf8').split('\n').find((l) => l.length > 40) as string;
    for (const out of [stream.stdout, stream.stderr, card.stdout, card.stderr]) assert.ok(!out.includes(key) && !out.includes('PRIVATE KEY'), out);
  });

  test('files that cannot be read or used are usage errors (exit 2), before any request', async () => {
    const cases: [string[], RegExp][] = [
      [['--cert', file('client.pem')], /--cert and --key go together/],
      [['--key', file('client.key')], /--cert and --key go together/],
      [['--cert', file('nope.pem'), '--key', file('client.key')], /--cert .*nope\.pem: no such file/],
      [['--cert', file('client.pem'), '--key', pki.dir], /--key .*: is a directory/],
      [['--cert', file('client.pem'), '--key', file('stranger.key')], /--cert\/--key: .*(does not match|not a usable certificate and key)/],
      [['--cacert', file('client.key')], /--cacert .*client\.key: no certificate in it/],
    ];
    for (const [flags, message] of cases) {
      // Port 9 (discard): nothing listens there, so a request made would fail with exit 4, not 2.
      const r = await runToExit(['send', 'https://127.0.0.1:9', 'hi', ...flags]);
      assert.equal(r.code, 2, `${flags.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.ok(!r.stderr.includes('PRIVATE KEY'), r.stderr);
    }
  });
});
