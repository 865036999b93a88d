/**
 * `a2a serve --grpc-port N` as a real process: gRPC beside HTTP over the same agent (a task
 * created over gRPC is visible over JSON-RPC), the card's GRPC interface `host:port` (GRPC-06)
 * answering, and TLS for every listener with --tls-cert/--tls-key. Skipped while the CLI does
 * not offer --grpc-port.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { after, describe, test } from 'node:test';
import { createGrpcClient } from '../../src/bindings/grpc/client.js';
import { serveHelp } from '../../src/cli/commands/serve.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { runA2A, type A2AProcess } from '../cli/cliHelpers.js';
import { runFixture } from '../support/fixtureProcess.js';

const skip = serveHelp.includes('--grpc-port') ? false : 'the CLI has no --grpc-port yet';
const procs: A2AProcess[] = [];
after(() => {
  for (const p of procs) p.kill();
});

async function serve(args: string[]): Promise<{ card: string; jsonrpc: string; grpc: string }> {
  // Memory: tests never serve the repository's default ./.a2a/tasks.db (one a2a serve per file).
  const proc = runA2A(['serve', '--port', '0', '--json', '--store', 'memory', ...args]);
  procs.push(proc);
  return JSON.parse(await proc.waitForLine(/^\{/)) as { card: string; jsonrpc: string; grpc: string };
}

/** A directory with a self-signed cert.pem (localhost, 127.0.0.1) and its key.pem. */
function selfSignedCert(): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-cli-tls-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  return dir;
}

describe('a2a serve --grpc-port', { skip }, () => {
  test('serves gRPC beside HTTP over the same agent; the card lists GRPC as host:port', async () => {
    const urls = await serve(['--grpc-port', '0']);
    assert.match(urls.grpc, /^localhost:\d+$/);
    const card = (await (await fetch(urls.card)).json()) as AgentCard;
    assert.deepEqual(
      card.supportedInterfaces.map((i) => i.protocolBinding),
      ['JSONRPC', 'HTTP+JSON', 'GRPC'],
    );
    assert.equal(card.supportedInterfaces[2]?.url, urls.grpc);
    const client = createGrpcClient(urls.grpc);
    try {
      const res = await client.sendMessage({ message: { messageId: `cli-grpc-${process.pid}`, role: 'ROLE_USER', parts: [{ text: 'hi from grpc' }] } });
      assert.ok('task' in res && res.task.status.state === 'TASK_STATE_COMPLETED');
      const viaHttp = await fetch(urls.jsonrpc, {
        method: 'POST',
        headers: { 'a2a-version': '1.0', 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: res.task.id } }),
      });
      assert.equal(((await viaHttp.json()) as { result: { id: string } }).result.id, res.task.id, 'one agent, two bindings');
    } finally {
      client.close();
    }
  });

  test('--tls-cert/--tls-key: HTTPS and gRPC over TLS', async () => {
    const dir = selfSignedCert();
    try {
      const urls = await serve(['--grpc-port', '0', '--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')]);
      assert.match(urls.card, /^https:\/\/localhost:\d+\//);
      const { readFileSync } = await import('node:fs');
      const client = createGrpcClient(urls.grpc, { tls: { ca: readFileSync(join(dir, 'cert.pem')) } });
      try {
        const res = await client.sendMessage({ message: { messageId: `cli-tls-${process.pid}`, role: 'ROLE_USER', parts: [{ text: 'msg secure' }] } });
        assert.ok('message' in res);
      } finally {
        client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a2a send https://localhost:P --binding grpc speaks TLS to a TLS gRPC listener, trusting NODE_EXTRA_CA_CERTS', async () => {
    const dir = selfSignedCert();
    try {
      const urls = await serve(['--grpc-port', '0', '--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')]);
      const base = new URL(urls.card).origin;
      assert.match(base, /^https:\/\/localhost:\d+$/);
      // grpc-js's roots: Node's store, or GRPC_DEFAULT_SSL_ROOTS_FILE_PATH (here one unrelated CA) instead.
      writeFileSync(join(dir, 'other-roots.pem'), rootCertificates[0] ?? '');
      for (const grpcRoots of ['', join(dir, 'other-roots.pem')]) {
        const send = runA2A(['send', base, 'msg over tls', '--binding', 'grpc', '--json'], { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'), GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: grpcRoots });
        procs.push(send);
        const { code } = await send.exited;
        assert.equal(code, 0, `GRPC_DEFAULT_SSL_ROOTS_FILE_PATH=${grpcRoots}: ${send.stderr}`);
        assert.ok('message' in (JSON.parse(send.stdout) as object), send.stdout);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('GRPC-01 the docs snippet createClient(https://localhost:P, grpcTransport()) speaks TLS to the loopback gRPC interface, as a2a send does', async () => {
    const dir = selfSignedCert();
    try {
      const urls = await serve(['--grpc-port', '0', '--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')]);
      const base = new URL(urls.card).origin;
      const { out, err } = await runFixture('test/grpc/fixtures/docsGrpcClient.ts', [base], { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') });
      assert.deepEqual(JSON.parse(out || '{}'), { ok: true, binding: 'GRPC', kind: 'message' }, err);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('usage errors: a bad --grpc-port, a certificate without its key', async () => {
    for (const args of [['--grpc-port', 'abc'], ['--tls-cert', 'x.pem']]) {
      const proc = runA2A(['serve', '--port', '0', ...args]);
      procs.push(proc);
      const { code } = await proc.exited;
      assert.notEqual(code, 0, args.join(' '));
    }
  });
});
