/**
 * Fixtures for the authentication suites: a secured agent served by serveAgent() over JSON-RPC,
 * HTTP+JSON and gRPC (one handler, one authenticator), an agent that echoes ctx.principal, a
 * real JWKS on loopback with keys generated here, and a tiny CA made with openssl.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose';
import { demoCard } from '../../src/cli/agents/demo.js';
import { serveAgent, type RunningAgent, type ServeAgentOptions } from '../../src/node/serveAgent.js';
import type { AgentCardBase } from '../../src/server/agentDefinition.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { AuthConfig, AuthFailure } from '../../src/auth/authConfig.js';
import type { AgentCard } from '../../src/protocol/types.js';
import { grpcBinding } from '../grpc/grpcTestBinding.js';
import { BAD_REQUEST_TYPE, restBinding, type CallOptions, type CallResult, type Json, type TestBinding, type WireError } from '../support/bindings.js';
import type { OperationName } from '../../src/protocol/types.js';

/** Replies with who called: `principal=<id> scheme=<name> scopes=<a,b>`. */
export const echoPrincipal: AgentExecutor = {
  async execute(ctx, task) {
    const p = ctx.principal;
    await task.reply(p ? `principal=${p.id} scheme=${p.scheme} scopes=${p.scopes.join(',')}` : 'principal=-');
  },
};

/** Completes a task whose artifact is `<principal id or ->|<text>`. */
export const taskPerPrincipal: AgentExecutor = {
  async execute(ctx, task) {
    await task.addArtifact(`${ctx.principal?.id ?? '-'}|${ctx.text}`);
    await task.complete();
  },
};

export function replyText(result: Json): string {
  return String(result?.message?.parts?.[0]?.text ?? '');
}

export function message(text = 'hi'): object {
  return { message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] } };
}

export interface SecuredAgent {
  agent: RunningAgent;
  bindings: TestBinding[];
  /** Errors the server reported (onError). */
  errors: unknown[];
  failures: AuthFailure[];
  close(): Promise<void>;
}

export interface SecuredOptions {
  securitySchemes: AgentCard['securitySchemes'];
  securityRequirements?: AgentCard['securityRequirements'];
  auth: Omit<AuthConfig, 'onFailure'>;
  extendedCard?: boolean;
  serve?: Partial<ServeAgentOptions>;
  /** The agent (default echoPrincipal, which answers with a message and keeps no task). */
  executor?: AgentExecutor;
}

export async function startSecured(options: SecuredOptions): Promise<SecuredAgent> {
  const errors: unknown[] = [];
  const failures: AuthFailure[] = [];
  const base = demoCard() as AgentCardBase;
  const card: AgentCardBase = {
    ...base,
    capabilities: { ...base.capabilities, pushNotifications: false, ...(options.extendedCard ? { extendedAgentCard: true } : {}) },
    ...(options.securitySchemes ? { securitySchemes: options.securitySchemes } : {}),
    ...(options.securityRequirements ? { securityRequirements: options.securityRequirements } : {}),
  };
  const agent = await serveAgent({
    agent: { card, executor: options.executor ?? echoPrincipal, ...(options.extendedCard ? { extendedCard: { ...card, name: `${card.name} (extended)` } } : {}) },
    port: 0,
    host: '127.0.0.1',
    shutdownTimeoutMs: 300,
    grpc: { port: 0 },
    onError: (e) => errors.push(e),
    ...options.serve,
    // serveAgent's one hook hears of every failure (host, gRPC and agent) once.
    handler: {
      auth: { ...options.auth, onFailure: (f) => failures.push(f) },
      ...options.serve?.handler,
    },
  });
  const grpcAddress = agent.grpc?.address as string;
  const bindings = [jsonRpcCaller(`${agent.url}/a2a/jsonrpc`), restBinding(`${agent.url}/a2a/rest`), grpcBinding(grpcAddress)];
  return { agent, bindings, errors, failures, close: () => agent.close() };
}

/**
 * JSON-RPC over fetch without the B6 "always 200" assertion of test/support: authentication
 * failures are HTTP 401/403 with a JSON-RPC error body (B7). `httpStatus` is set on errors.
 */
export function jsonRpcCaller(url: string): TestBinding {
  let counter = 0;
  const call = async (op: OperationName, params: object, opts: CallOptions = {}): Promise<CallResult> => {
    const id = ++counter;
    const headers = new Headers({ 'content-type': 'application/json', 'a2a-version': '1.0' });
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== null) headers.set(k, v);
    const u = new URL(url);
    for (const [k, v] of Object.entries(opts.query ?? {})) u.searchParams.set(k, v);
    const res = await fetch(u, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: op.charAt(0).toUpperCase() + op.slice(1), params }) });
    const body = (await res.json()) as Json;
    assert.equal(body.id, id);
    const transport = { headers: res.headers, status: res.status, contentType: res.headers.get('content-type') ?? '' };
    if ('result' in body) return { ok: true, result: body.result, ...transport };
    const info = (body.error.data as Json[] | undefined)?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
    const error: WireError = {
      reason: String(info?.reason ?? ''),
      message: String(body.error.message),
      details: body.error.data ?? [],
      fieldViolations: (body.error.data as Json[] | undefined)?.find((d) => d['@type'] === BAD_REQUEST_TYPE)?.fieldViolations ?? [],
      metadata: info?.metadata ?? {},
      jsonRpcCode: body.error.code,
      httpStatus: res.status,
      raw: body,
    };
    return { ok: false, error, ...transport };
  };
  return {
    name: 'JSONRPC',
    call,
    stream: () => {
      throw new Error('not used');
    },
  };
}

/** Asserts an authentication failure in the binding's own terms. */
export function assertAuthFailure(binding: TestBinding, r: CallResult, expected: { reason: 'UNAUTHENTICATED' | 'PERMISSION_DENIED'; challenge?: RegExp }): WireError {
  assert.equal(r.ok, false, `${binding.name}: expected ${expected.reason}, got ${JSON.stringify(r.ok ? r.result : '')}`);
  const error = (r as { error: WireError }).error;
  assert.equal(error.reason, expected.reason, `${binding.name}: ${JSON.stringify(error.raw)}`);
  const http = expected.reason === 'UNAUTHENTICATED' ? 401 : 403;
  if (binding.name === 'GRPC') {
    assert.equal(error.grpcStatus, expected.reason);
  } else {
    assert.equal(r.status, http, `${binding.name}: HTTP status`);
    if (binding.name === 'JSONRPC') assert.equal(error.jsonRpcCode, -32000);
    else assert.equal(error.grpcStatus, expected.reason);
    if (expected.challenge) assert.match(r.headers.get('www-authenticate') ?? '', expected.challenge, `${binding.name}: WWW-Authenticate`);
  }
  return error;
}

// ---------------------------------------------------------------------------------------------
// A JWKS on loopback, with tokens signed by its key (or another one)
// ---------------------------------------------------------------------------------------------

export interface TestIssuer {
  issuer: string;
  jwksUrl: string;
  /** How many times the JWKS was fetched. */
  fetches: number;
  sign(claims?: JWTPayload, options?: { key?: 'main' | 'other' | 'rotated'; expiresIn?: string | number; audience?: string; issuer?: string }): Promise<string>;
  /** Publishes the rotated key too (key rotation). */
  rotate(): void;
  close(): Promise<void>;
}

export const AUDIENCE = 'https://agent.test';

export async function startIssuer(): Promise<TestIssuer> {
  const keys = {
    main: await generateKeyPair('RS256', { extractable: true }),
    other: await generateKeyPair('RS256', { extractable: true }),
    rotated: await generateKeyPair('ES256', { extractable: true }),
  };
  const jwk = async (name: keyof typeof keys, alg: string): Promise<JWK> => ({ ...(await exportJWK(keys[name].publicKey)), kid: name, alg, use: 'sig' });
  const published: JWK[] = [await jwk('main', 'RS256')];
  const rotatedJwk = await jwk('rotated', 'ES256');
  const state = { fetches: 0 };
  const server: Server = createServer((req, res) => {
    if (req.url === '/jwks.json') {
      state.fetches++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: published }));
      return;
    }
    if (req.url === '/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks.json` }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer: base,
    jwksUrl: `${base}/jwks.json`,
    get fetches() {
      return state.fetches;
    },
    async sign(claims = {}, options = {}) {
      const name = options.key ?? 'main';
      // 'other' claims the main key's kid: a forged signature, not an unknown key.
      const kid = name === 'other' ? 'main' : name;
      const alg = name === 'rotated' ? 'ES256' : 'RS256';
      return new SignJWT({ sub: 'alice', ...claims })
        .setProtectedHeader({ alg, kid })
        .setIssuer(options.issuer ?? base)
        .setAudience(options.audience ?? AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m')
        .sign(keys[name].privateKey);
    },
    rotate() {
      published.push(rotatedJwk);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An unsecured JWT (`alg: none`) with valid-looking claims. */
export function unsecuredToken(issuer: string): string {
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'mallory', iss: issuer, aud: AUDIENCE, iat: now, exp: now + 300 })}.`;
}

// ---------------------------------------------------------------------------------------------
// Certificates (openssl)
// ---------------------------------------------------------------------------------------------

export interface TestPki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate from another CA (not trusted by the server). */
  strangerCert: string;
  strangerKey: string;
}

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function makePki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-pki-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ca = (name: string) => ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`);
  const leaf = (c: { name: string; ca: string; subj: string; ext: string }) => {
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${c.name}.key`, '-out', `${c.name}.csr`, '-subj', c.subj);
    writeFileSync(join(dir, `${c.name}.ext`), c.ext);
    ssl('x509', '-req', '-in', `${c.name}.csr`, '-CA', `${c.ca}.pem`, '-CAkey', `${c.ca}.key`, '-CAcreateserial', '-out', `${c.name}.pem`, '-days', '2', '-extfile', `${c.name}.ext`);
  };
  ca('test-ca');
  ca('other-ca');
  leaf({ name: 'server', ca: 'test-ca', subj: '/CN=localhost', ext: 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' });
  leaf({ name: 'client', ca: 'test-ca', subj: '/O=Example/CN=alice', ext: 'subjectAltName=URI:spiffe://example/alice\nextendedKeyUsage=clientAuth\n' });
  leaf({ name: 'stranger', ca: 'other-ca', subj: '/CN=mallory', ext: 'extendedKeyUsage=clientAuth\n' });
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return {
    dir,
    caCert: read('test-ca.pem'),
    serverCert: read('server.pem'),
    serverKey: read('server.key'),
    clientCert: read('client.pem'),
    clientKey: read('client.key'),
    strangerCert: read('stranger.pem'),
    strangerKey: read('stranger.key'),
  };
}
