/**
 * A gRPC call that never reaches its server says where it went and why, as the HTTP transports
 * do ("Could not reach <url>"): NETWORK "Could not reach gRPC <host:port> over TLS|plaintext:
 * <cause>", one line, with no grpc-js timestamp, empty "Resolution note" or OpenSSL internals,
 * and what to change when TLS or plaintext is the likely mistake; the grpc-js ServiceError
 * stays the cause. Real servers: a TLS and a plaintext gRPC server, an HTTP/1.1 server, for
 * createGrpcClient, createClient + grpcTransport() (1.0) and + grpc03Transport() (0.3), and
 * `a2a send --binding grpc --json`.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { createGrpcClient, grpcTransport } from '../../src/bindings/grpc/client.js';
import { grpc03Transport } from '../../src/bindings/grpc/v03Client.js';
import { createClient } from '../../src/client/client.js';
import { A2AClientError } from '../../src/client/errors.js';
import type { TransportFactory } from '../../src/client/transport.js';
import { hasOpenssl, makePki, type TestPki } from '../auth/support.js';
import { runToExit } from '../cli/cliHelpers.js';
import { cardAt } from '../client/fakeAgent.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

const skip = hasOpenssl() ? false : 'openssl is not available';
let pki: TestPki;
let tlsServer: GrpcTestServer;
let plainServer: GrpcTestServer;
let http1: http.Server;
const localhost = (address: string) => `localhost:${address.split(':').pop()}`;

before(async () => {
  if (skip) return;
  pki = makePki();
  tlsServer = await startGrpcServer({ grpc: { tls: { cert: pki.serverCert, key: pki.serverKey } } });
  plainServer = await startGrpcServer();
  http1 = http.createServer((_req, res) => res.end('not grpc'));
  await new Promise<void>((resolve) => http1.listen(0, '127.0.0.1', resolve));
});
after(async () => {
  if (skip) return;
  http1.close();
  await Promise.all([tlsServer.close(), plainServer.close()]);
  rmSync(pki.dir, { recursive: true, force: true });
});

interface Case {
  name: string;
  address: () => string;
  tls: boolean;
  message: RegExp;
}

const CASES: Case[] = [
  {
    name: 'a plaintext client at a TLS server: the server may expect TLS',
    address: () => localhost(tlsServer.address),
    tls: false,
    message: /^Could not reach gRPC localhost:\d+ over plaintext: the server closed the connection before HTTP\/2 began; the server may expect TLS: set grpcTransport's tls option, or reach the agent through its https URL$/,
  },
  {
    name: 'a TLS client at a plaintext server: the server may speak plaintext',
    address: () => localhost(plainServer.address),
    tls: true,
    message: /^Could not reach gRPC localhost:\d+ over TLS: the TLS handshake failed: the server does not speak TLS; the server may speak plaintext: set grpcTransport's tls: false, or reach the agent through its http URL$/,
  },
  {
    name: 'a plaintext client at an HTTP/1.1 port',
    address: () => `localhost:${(http1.address() as AddressInfo).port}`,
    tls: false,
    message: /^Could not reach gRPC localhost:\d+ over plaintext: the server did not answer in HTTP\/2 \(an HTTP\/1\.1 port, not its gRPC one\?\)$/,
  },
];

/** The error of `run`, checked as every case's: NETWORK, one clean line, the ServiceError as cause. */
async function unreachableError(run: () => Promise<unknown>, expected: RegExp): Promise<void> {
  const error = await run().then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => e,
  );
  assert.ok(A2AClientError.is(error, 'NETWORK'), String(error));
  assert.match(error.message, expected);
  assert.doesNotMatch(error.message, /\n|Resolution note|\d{4}-\d\d-\d\dT|SSL routines|deps\/openssl|UNAVAILABLE/);
  const cause = error.cause as { code?: unknown; details?: unknown };
  assert.equal(cause.code, 14, 'the grpc-js ServiceError (UNAVAILABLE) is the cause');
  assert.match(String(cause.details), /No connection established/);
}

const message = (text: string) => ({ message: { messageId: `u-${process.pid}-${text}`, role: 'ROLE_USER' as const, parts: [{ text }] } });

describe('GRPC-01 a gRPC server that cannot be reached: NETWORK "Could not reach gRPC <host:port> over TLS|plaintext: <cause>"', { skip }, () => {
  for (const c of CASES) {
    test(`createGrpcClient, unary and stream: ${c.name}`, async () => {
      const client = createGrpcClient(c.address(), { tls: c.tls });
      try {
        await unreachableError(() => client.getTask({ id: 't' }), c.message);
        await unreachableError(async () => {
          for await (const event of client.sendStreamingMessage(message('s'))) void event;
        }, c.message);
      } finally {
        client.close();
      }
    });

    test(`createClient + grpcTransport() (1.0) and grpc03Transport() (0.3): ${c.name}`, async () => {
      const made: Array<[TransportFactory & { close(): void }, string]> = [
        [grpcTransport({ tls: c.tls }), '1.0'],
        [grpc03Transport({ tls: c.tls }), '0.3'],
      ];
      for (const [transport, version] of made) {
        try {
          const client = await createClient(cardAt(c.address(), { binding: 'GRPC', version }), { transports: [transport], bindings: ['GRPC'] });
          assert.equal(client.agentInterface.protocolVersion, version);
          await unreachableError(() => client.sendMessage(message(version)), c.message);
        } finally {
          transport.close();
        }
      }
    });
  }

  test('a refused connection and an untrusted certificate name their cause', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = createGrpcClient(`127.0.0.1:${port}`);
    // The test CA is in no trust store: TLS by default refuses the server's certificate.
    const untrusted = createGrpcClient(localhost(tlsServer.address), { tls: true });
    try {
      await unreachableError(() => refused.getTask({ id: 't' }), /^Could not reach gRPC 127\.0\.0\.1:\d+ over plaintext: connection refused, nothing listens on that port \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/);
      await unreachableError(
        () => untrusted.getTask({ id: 't' }),
        /^Could not reach gRPC localhost:\d+ over TLS: the server's certificate was refused \(unable to verify the first certificate\); trust its CA with grpcTransport's tls: \{ ca \} or NODE_EXTRA_CA_CERTS$/,
      );
    } finally {
      refused.close();
      untrusted.close();
    }
  });
});

/** An HTTP server answering every request with `card`; its URL. */
async function serveCard(card: unknown): Promise<{ url: string; close(): void }> {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('GRPC-01 a2a send --binding grpc --json: the same one-line NETWORK message (exit 4)', { skip }, () => {
  test("plaintext (a card read over http) at a TLS server; TLS (--cacert) at a plaintext server; another CA's --cacert: what to change, in a2a's flags", async () => {
    const ca = join(pki.dir, 'test-ca.pem');
    writeFileSync(ca, pki.caCert);
    const otherCa = join(pki.dir, 'other-ca.pem');
    writeFileSync(otherCa, rootCertificates[0] ?? '');
    const atTls = await serveCard(cardAt(localhost(tlsServer.address), { binding: 'GRPC' }));
    const atPlain = await serveCard(cardAt(localhost(plainServer.address), { binding: 'GRPC' }));
    try {
      // The causes are the library's (CASES); what to change names the command's flags, not grpcTransport's options.
      for (const [args, expected] of [
        [[atTls.url], /^Could not reach gRPC localhost:\d+ over plaintext: the server closed the connection before HTTP\/2 began; the server may expect TLS: reach the agent through its https URL, or give --cacert FILE \(TLS, trusting that CA\)$/],
        [[atPlain.url, '--cacert', ca], /^Could not reach gRPC localhost:\d+ over TLS: the TLS handshake failed: the server does not speak TLS; the server may speak plaintext: a2a uses it only for a loopback gRPC address whose card came over http, without --cert, --key or --cacert$/],
        [[atTls.url, '--cacert', otherCa], /^Could not reach gRPC localhost:\d+ over TLS: the server's certificate was refused \(.+\); trust its CA with --cacert FILE or NODE_EXTRA_CA_CERTS$/],
      ] as const) {
        const r = await runToExit(['send', ...args, 'hi', '--binding', 'grpc', '--json']);
        assert.equal(r.code, 4, r.stderr);
        const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string; grpcCode: number } };
        assert.deepEqual([error.code, error.grpcCode], ['NETWORK', 14]);
        assert.match(error.message, expected as RegExp);
        assert.doesNotMatch(error.message, /\n|Resolution note|SSL routines/);
        assert.equal(r.stderr, `a2a send: client error: NETWORK: ${error.message} [gRPC UNAVAILABLE]\n`);
      }
    } finally {
      atTls.close();
      atPlain.close();
    }
  });
});
