/**
 * Mutual TLS with real certificates (a CA, a server and two client certificates made with
 * openssl): the HTTPS and gRPC-over-TLS listeners request client certificates and trust the
 * test CA; a trusted certificate authenticates (principal = subject DN), none or one from
 * another CA gets 401 / UNAUTHENTICATED.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { Client, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import { fromBinary, toBinary, create } from '@bufbuild/protobuf';
import { SendMessageRequestSchema, SendMessageResponseSchema } from '../../src/gen/a2a_pb.js';
import { Role } from '../../src/gen/a2a_pb.js';
import { hasOpenssl, makePki, startSecured, type SecuredAgent, type TestPki } from './support.js';
import { wireError } from '../grpc/grpcTestBinding.js';

const skip = hasOpenssl() ? false : 'openssl is not available';
let pki: TestPki;
let server: SecuredAgent;

before(async () => {
  if (skip) return;
  pki = makePki();
  server = await startSecured({
    securitySchemes: { mtls: { mtlsSecurityScheme: { description: 'client certificate issued by the test CA' } } },
    securityRequirements: [{ schemes: { mtls: {} } }],
    auth: { schemes: {} },
    serve: { tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.caCert } },
  });
});

after(() => server?.close());

type Identity = { cert: string; key: string } | undefined;

/** JSON-RPC SendMessage over HTTPS with an optional client certificate. */
function httpsSend(identity: Identity): Promise<{ status: number; body: { result?: { message: { parts: { text: string }[] } }; error?: { message: string } } }> {
  const url = new URL(`${server.agent.url}/a2a/jsonrpc`);
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] } } });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        ca: pki.caCert,
        servername: 'localhost',
        agent: false,
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        ...(identity ? { cert: identity.cert, key: identity.key } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** gRPC SendMessage over TLS with an optional client certificate. */
function grpcSend(identity: Identity): Promise<{ text?: string; error?: ServiceError }> {
  const creds = credentials.createSsl(Buffer.from(pki.caCert), identity ? Buffer.from(identity.key) : null, identity ? Buffer.from(identity.cert) : null);
  const client = new Client(server.agent.grpc?.address as string, creds);
  const body = Buffer.from(
    toBinary(SendMessageRequestSchema, create(SendMessageRequestSchema, { message: { messageId: `g-${Date.now()}`, role: Role.USER, parts: [{ content: { case: 'text', value: 'hi' } }] } })),
  );
  const md = new Metadata();
  md.set('a2a-version', '1.0');
  return new Promise((resolve) => {
    client.makeUnaryRequest<Buffer, Buffer>('/lf.a2a.v1.A2AService/SendMessage', (b) => b, (b) => b, body, md, (error, value) => {
      client.close();
      if (error) return resolve({ error });
      const res = fromBinary(SendMessageResponseSchema, value as Buffer);
      const part = res.payload.case === 'message' ? res.payload.value.parts[0] : undefined;
      resolve({ text: part?.content.case === 'text' ? part.content.value : '' });
    });
  });
}

test('a certificate from the trusted CA authenticates; the principal is its subject', { skip }, async () => {
  const http = await httpsSend({ cert: pki.clientCert, key: pki.clientKey });
  assert.equal(http.status, 200, JSON.stringify(http.body));
  assert.equal(http.body.result?.message.parts[0]?.text, 'principal=O=Example,CN=alice scheme=mtls scopes=');
  const grpc = await grpcSend({ cert: pki.clientCert, key: pki.clientKey });
  assert.equal(grpc.error, undefined, grpc.error?.message);
  assert.equal(grpc.text, 'principal=O=Example,CN=alice scheme=mtls scopes=');
});

test('no client certificate: 401 / UNAUTHENTICATED', { skip }, async () => {
  const http = await httpsSend(undefined);
  assert.equal(http.status, 401);
  assert.match(http.body.error?.message ?? '', /Authentication required: mtls/);
  const grpc = await grpcSend(undefined);
  assert.equal(grpc.error && wireError(grpc.error).reason, 'UNAUTHENTICATED');
});

test('a certificate from another CA: 401 / UNAUTHENTICATED (the TLS handshake itself succeeds)', { skip }, async () => {
  const http = await httpsSend({ cert: pki.strangerCert, key: pki.strangerKey });
  assert.equal(http.status, 401);
  assert.match(http.body.error?.message ?? '', /not trusted/);
  const grpc = await grpcSend({ cert: pki.strangerCert, key: pki.strangerKey });
  assert.equal(grpc.error && wireError(grpc.error).grpcStatus, 'UNAUTHENTICATED');
});
