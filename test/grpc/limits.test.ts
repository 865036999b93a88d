/**
 * Limits and transport security of the gRPC listener: message size (R15: 4 MiB default,
 * configurable, RESOURCE_EXHAUSTED), TLS when a certificate is given (GRPC-01, SEC-01) and
 * plaintext h2c otherwise.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fromJson, toBinary } from '@bufbuild/protobuf';
import { status as grpcStatus } from '@grpc/grpc-js';
import { createGrpcClient } from '../../src/bindings/grpc/client.js';
import { A2AClientError } from '../../src/client/errors.js';
import { SendMessageRequestSchema } from '../../src/gen/a2a_pb.js';
import { A2AError } from '../../src/protocol/errors.js';
import { uid } from '../support/assertions.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';
import { rawCall } from './wire.js';

const MiB = 1024 * 1024;

/** A SendMessage of about `textLength` bytes; the "msg" reply echoes it once (under the client's 4 MiB). */
function sendBytes(textLength: number): Uint8Array {
  const json = { message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text: `msg ${'x'.repeat(textLength)}` }] } };
  return toBinary(SendMessageRequestSchema, fromJson(SendMessageRequestSchema, json));
}

describe('gRPC message size limits (R15)', () => {
  let server: GrpcTestServer;
  let small: GrpcTestServer;
  before(async () => {
    server = await startGrpcServer();
    small = await startGrpcServer({ grpc: { maxMessageBytes: 64 * 1024 } });
  });
  after(() => Promise.all([server.close(), small.close()]));

  test('4 MiB by default: 3 MiB is served, 5 MiB is RESOURCE_EXHAUSTED before the handler sees it', async () => {
    assert.equal((await rawCall(server.address, 'SendMessage', { body: sendBytes(3 * MiB) })).code, grpcStatus.OK);
    const out = await rawCall(server.address, 'SendMessage', { body: sendBytes(5 * MiB) });
    assert.equal(out.code, grpcStatus.RESOURCE_EXHAUSTED);
    assert.match(out.details, /larger than max/);
  });

  test('configurable: 64 KiB serves 60 KiB and refuses 100 KiB; the client reads it as PayloadTooLargeError', async () => {
    const client = createGrpcClient(small.address);
    try {
      const okTask = await client.sendMessage({ message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text: `hi ${'y'.repeat(60 * 1024)}` }] } });
      assert.ok('task' in okTask);
      await assert.rejects(
        client.sendMessage({ message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text: 'z'.repeat(100 * 1024) }] } }),
        (e: unknown) => A2AError.is(e) && e.reason === 'PAYLOAD_TOO_LARGE',
      );
      // The server is unharmed.
      assert.ok('task' in (await client.sendMessage({ message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text: 'hi' }] } })));
    } finally {
      client.close();
    }
  });

  test('a response larger than the client limit fails locally as INVALID_RESPONSE (the task ran), not as the server refusing the request', async () => {
    const client = createGrpcClient(server.address, { maxMessageBytes: 4 * 1024 });
    try {
      const messageId = uid('m');
      await assert.rejects(
        client.sendMessage({ message: { messageId, role: 'ROLE_USER', parts: [{ text: `hi ${'w'.repeat(3 * 1024)}` }] } }),
        (e: unknown) => {
          assert.ok(A2AClientError.is(e, 'INVALID_RESPONSE'), `got ${String(e)}`);
          assert.match(e.message, /larger than this client's maxMessageBytes \(4096\); the call itself may have succeeded/);
          return true;
        },
      );
      // It did: the task exists and completed (a roomier client reads it).
      const roomy = createGrpcClient(server.address);
      try {
        const { tasks } = await roomy.listTasks({ pageSize: 1, historyLength: 1 });
        assert.equal(tasks[0]?.history?.[0]?.messageId, messageId);
        assert.equal(tasks[0]?.status.state, 'TASK_STATE_COMPLETED');
      } finally {
        roomy.close();
      }
    } finally {
      client.close();
    }
  });

  test('a 20 MiB request is refused and the listener keeps serving', async () => {
    const out = await rawCall(server.address, 'SendMessage', { body: sendBytes(20 * MiB) });
    assert.equal(out.code, grpcStatus.RESOURCE_EXHAUSTED);
    assert.equal((await rawCall(server.address, 'SendMessage', { body: sendBytes(10) })).code, grpcStatus.OK);
  });
});

describe('gRPC over TLS (GRPC-01)', () => {
  let dir: string;
  let cert: string;
  let key: string;
  let server: GrpcTestServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'a2a-grpc-tls-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    key = readFileSync(join(dir, 'key.pem'), 'utf8');
    server = await startGrpcServer({ grpc: { tls: { cert, key } } });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a client trusting the certificate is served', async () => {
    const client = createGrpcClient(server.address, { tls: { ca: cert } });
    try {
      const res = await client.sendMessage({ message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text: 'hi over tls' }] } });
      assert.ok('task' in res && res.task.status.state === 'TASK_STATE_COMPLETED');
      const events: unknown[] = [];
      for await (const e of client.sendStreamingMessage({ message: { messageId: uid('m'), role: 'ROLE_USER', parts: [{ text: 'stream tls' }] } })) events.push(e);
      assert.equal(events.length, 13);
    } finally {
      client.close();
    }
  });

  test('plaintext against the TLS port, or TLS without trusting the certificate, fails as NETWORK', async () => {
    for (const options of [{ tls: false }, { tls: true }]) {
      const client = createGrpcClient(server.address, options);
      try {
        await assert.rejects(client.getTask({ id: 'x' }), (e: unknown) => A2AClientError.is(e, 'NETWORK'));
      } finally {
        client.close();
      }
    }
  });
});
