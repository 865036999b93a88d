/** `a2a serve`: run an agent over JSON-RPC and HTTP+JSON, with the card at the well-known path. */
import { parseArgs } from 'node:util';
import { DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH } from '../../server/createA2AHandler.js';
import { AGENT_CARD_PATH } from '../../server/agentCardRoute.js';
import { serveAgent, type RunningAgent, type ServeAgentBaseOptions } from '../../node/serveAgent.js';
import { formatError } from '../../server/errorHook.js';
import type { RequestHandlerLike } from '../../server/tenantRouter.js';
import { loadAgent, loadTenants } from '../agents/load.js';
import { UsageError } from '../usage.js';
import { httpUrl, intOption } from '../args.js';
import { requireAuthConfig } from '../agents/requireAuthConfig.js';
import { quietGrpcBindFailure } from '../grpcLog.js';
import { listenFailure } from '../listenFailure.js';
import { withStore } from '../storeFailure.js';
import { readCaFile, tlsOptions } from '../tlsOptions.js';
import { openStore, parseStoreSpec, type StoreSpec } from '../../stores/contract/openStore.js';
import { wireStore, type WiredStore } from '../../stores/contract/wireStore.js';
import { startRetention } from '../../stores/contract/retention.js';
import { heldAccessLog } from '../accessLogOutput.js';
import { readAuthConfig } from './authConfigFile.js';
import { abuseLimitOptions, compatOption, grpcListenerFlags, pushLabel, pushOptions, taskLimitOptions, trustProxyOption } from './serveFlags.js';
import { whenStdoutClosed } from '../stdoutClosed.js';

export const serveHelp = `Usage: a2a serve [options]

Run an A2A agent: the Agent Card at /.well-known/agent-card.json, JSON-RPC 2.0 at
${DEFAULT_JSONRPC_PATH} and HTTP+JSON at ${DEFAULT_REST_PATH} (both with SSE streaming).

Options:
  --agent NAME|PATH   demo (default), conformance, or a module exporting { card, executor }
  --tenants FILE      several agents from one server: JSON (or a module) mapping tenant → agent,
                      e.g. {"acme": "./acme.ts", "globex": "demo"}; each card is at
                      /{tenant}/.well-known/agent-card.json (see docs/tenants.md)
  --host HOST         interface to bind (default 127.0.0.1)
  --port N            port (default 8080; 0 picks a free one)
  --public-url URL    base URL written into the card (default http://localhost:PORT on 127.0.0.1,
                      http://[::1]:PORT on ::1)
  --max-body BYTES    request body limit (default 1048576); with --grpc-port also the largest
                      gRPC request message (default there 4194304), RESOURCE_EXHAUSTED past it
  --grpc-port N       also serve gRPC (lf.a2a.v1.A2AService) on this port, another than
                      --port's; 0 picks a free one
  --grpc-max-connection-age-ms N
                      send GOAWAY to a gRPC connection this old (±10 %), so clients behind an L4
                      load balancer reconnect and spread over instances; running calls get 30 s
                      more, streams then end UNAVAILABLE and clients resubscribe
                      (default 1800000, 30 min; 0: no maximum age)
  --grpc-max-streams-per-connection N
                      gRPC calls at once per HTTP/2 connection; clients queue more (default 100)
  --tls-cert FILE     PEM certificate chain: HTTPS and gRPC over TLS (with --tls-key)
  --tls-key FILE      PEM private key of --tls-cert
  --tls-ca FILE       PEM CA(s) of client certificates: request them on the TLS listeners (mutual TLS)
  --auth-config FILE  JSON: how to verify each of the card's securitySchemes, e.g.
                      {"apiKey": {"keys": {"sha256:<hex>": "alice"}},
                       "bearer": {"jwks": "https://id.example/jwks.json", "issuer": "https://id.example",
                                  "audience": "https://agent.example"},
                       "mtls": {"ca": "clients-ca.pem"}}     (see docs/security.md)
  --store SPEC        where tasks live: sqlite (default: ./.a2a/tasks.db), sqlite:PATH,
                      memory, or postgres://user:pass@host:5432/db[?schema=a2a]
  --pg-pool-size N    PostgreSQL: most connections in this instance's store pool, 1..1000
                      (default 10; the event bus holds one more; see docs/deploy.md, Sizing)
  --retention-days N  delete finished tasks N days after their last change, on any --store
                      (default: keep all; the memory store then grows with every task)
  --recover-interrupted
                      PostgreSQL: on start, mark SUBMITTED/WORKING tasks FAILED (only when this
                      is the only instance; SQLite always does this: one a2a serve per file)
  --allow-private-webhooks
                      deliver push notifications to loopback/private addresses (development
                      only; refused by default as server-side request forgery)
  --push-key KEY      seal stored webhook tokens/credentials (AES-256-GCM; 32 bytes base64/hex
                      or a passphrase; default: $A2A_PUSH_KEY)
  --webhook-secret S  sign deliveries (Standard Webhooks, whsec_…); repeat to rotate keys
                      (default: $A2A_WEBHOOK_SECRETS, comma-separated)
  --rate-limit N      requests per second per caller (principal, else address), burst 2N
                      (the health probes and /metrics are not counted)
  --trust-proxy CIDR[,CIDR…]
                      the load balancers / proxies in front (addresses or CIDR ranges; repeatable):
                      a request from one has as its address the rightmost X-Forwarded-For hop
                      that is not one of them (rate limits, access log); default: the connection's
  --max-streams N     streams open at once per caller
  --max-tasks-per-context N
                      new tasks running at once in one context (limits answer 429 /
                      RESOURCE_EXHAUSTED to that caller only; all off by default)
  --max-history-messages N
                      most messages a task's history keeps (default 1000); a follow-up past it
                      is refused with 429 / RESOURCE_EXHAUSTED, nothing is dropped
  --max-history-chars N
                      most characters of JSON content in a task's history (default 16777216)
  --max-list-response-chars N
                      most characters of task JSON in one ListTasks answer (default 8388608);
                      a page ends early there, with a nextPageToken, one task always comes
  --heartbeat-ms N    write an SSE comment on a stream silent for N ms, so proxies keep it open
                      and clients see the server lives (default 15000)
  --auth-required-stream-ms N
                      keep streams open up to N ms at AUTH_REQUIRED, for an agent that resumes
                      on a credential delivered out-of-band (default 0: they end there)
  --lease-ttl-ms N    PostgreSQL: how long a task's run is owned without renewal; after an
                      instance dies, another takes its tasks over within about this (default 15000)
  --push-max-attempts N
                      attempts per delivery before it becomes a dead letter (default 10)
  --push-backoff-ms N first retry delay ceiling, doubling per attempt with full jitter (default 1000)
  --sign-key FILE     sign the Agent Card with this private key (PEM or JWK; see docs/signing.md)
  --sign-kid KID      key id in the signature (default: the key's kid, else its JWK thumbprint)
  --sign-jku URL      JWKS URL put in the signature header, where verifiers find the public key
  --no-compat         do not serve A2A 0.3 clients (default: 0.3 requests, i.e. without
                      A2A-Version, are translated and served on JSON-RPC, REST /v1 and, with
                      --grpc-port, the 0.3 gRPC service a2a.v1.A2AService; see docs/compat.md)
  --metrics           Prometheus metrics at GET /metrics on the HTTP listener (no authentication:
                      bind privately or put it behind your proxy; see docs/deploy.md)
  --access-log        one JSON line per A2A call on stdout, after the listening output (no
                      headers, bodies or tokens; see docs/deploy.md)
  --no-health         do not serve the health probes (default: GET/HEAD /healthz, liveness, and
                      /readyz, readiness: 503 while draining or when the store does not answer
                      within 1 s; with --grpc-port also grpc.health.v1.Health; see docs/deploy.md)
  --shutdown-delay-ms N
                      on SIGTERM, keep serving N ms with /readyz answering 503 "draining" before
                      closing the listeners, so load balancers stop routing here first (default 0)
  --json              print the listening URLs as one JSON line
  -h, --help          show this help

Examples:
  a2a serve
  a2a serve --agent conformance --port 9999
  a2a serve --store memory
  a2a serve --store postgres://a2a@db.internal/agents --retention-days 30
  a2a serve --agent ./my-agent.ts --host 0.0.0.0 --public-url https://agent.example.com
  a2a serve --tenants tenants.json --grpc-port 50051
  a2a serve --grpc-port 50051 --tls-cert cert.pem --tls-key key.pem
  a2a serve --agent ./secured-agent.ts --auth-config auth.json --tls-cert cert.pem --tls-key key.pem
`;

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      agent: { type: 'string' },
      tenants: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8080' },
      'public-url': { type: 'string' },
      'max-body': { type: 'string' },
      'grpc-port': { type: 'string' },
      'grpc-max-connection-age-ms': { type: 'string' },
      'grpc-max-streams-per-connection': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'tls-ca': { type: 'string' },
      'auth-config': { type: 'string' },
      store: { type: 'string', default: 'sqlite' },
      'retention-days': { type: 'string' },
      'recover-interrupted': { type: 'boolean', default: false },
      'allow-private-webhooks': { type: 'boolean', default: false },
      'push-key': { type: 'string' },
      'webhook-secret': { type: 'string', multiple: true },
      'push-max-attempts': { type: 'string' },
      'lease-ttl-ms': { type: 'string' },
      'rate-limit': { type: 'string' },
      'trust-proxy': { type: 'string', multiple: true },
      'max-streams': { type: 'string' },
      'max-tasks-per-context': { type: 'string' },
      'max-history-messages': { type: 'string' },
      'max-history-chars': { type: 'string' },
      'max-list-response-chars': { type: 'string' },
      'auth-required-stream-ms': { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      'push-backoff-ms': { type: 'string' },
      'sign-key': { type: 'string' },
      'sign-kid': { type: 'string' },
      'sign-jku': { type: 'string' },
      'no-compat': { type: 'boolean', default: false },
      metrics: { type: 'boolean', default: false },
      'access-log': { type: 'boolean', default: false },
      'no-health': { type: 'boolean', default: false },
      'shutdown-delay-ms': { type: 'string' },
      'pg-pool-size': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(serveHelp);
    return 0;
  }
  const port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port must be 0..65535, got ${values.port || "an empty value"}`);
  if (values['public-url'] !== undefined) httpUrl(values['public-url'], '--public-url');
  const maxBody = values['max-body'] === undefined ? undefined : Number(values['max-body']);
  if (maxBody !== undefined && (!Number.isInteger(maxBody) || maxBody < 1)) throw new UsageError('--max-body must be a positive integer');
  const retentionDays = values['retention-days'] === undefined ? undefined : Number(values['retention-days']);
  if (retentionDays !== undefined && !(retentionDays > 0)) throw new UsageError('--retention-days must be a positive number');
  const grpcPort = values['grpc-port'] === undefined ? undefined : /^\d{1,5}$/.test(values['grpc-port']) ? Number(values['grpc-port']) : NaN;
  if (grpcPort !== undefined && !(grpcPort >= 0 && grpcPort <= 65535)) throw new UsageError(`--grpc-port must be 0..65535, got ${values['grpc-port'] || 'an empty value'}`);
  // HTTP and gRPC listen on separate ports (the same one would be "in use" by our own HTTP listener).
  if (grpcPort === port && port !== 0) throw new UsageError(`--grpc-port must differ from --port (${port}): HTTP and gRPC listen on separate ports`);
  const grpcListener = grpcListenerFlags(values);
  const auth = values['auth-config'] === undefined ? undefined : readAuthConfig(values['auth-config']);
  const clientCas = [...(values['tls-ca'] ? [readCaFile('--tls-ca', values['tls-ca'])] : []), ...(auth?.clientCas ?? [])];
  const tls = tlsOptions(values, clientCas);
  const push = pushOptions(values);
  const leaseTtlMs = intOption(values['lease-ttl-ms'], '--lease-ttl-ms', { min: 100 });
  const abuseLimits = abuseLimitOptions(values);
  const trustProxy = trustProxyOption(values['trust-proxy']);
  const taskLimits = taskLimitOptions(values);
  const heartbeatMs = intOption(values['heartbeat-ms'], '--heartbeat-ms', { min: 10, max: 2_147_483_647 });
  const authRequiredStreamMs = intOption(values['auth-required-stream-ms'], '--auth-required-stream-ms', { min: 0, max: 2_147_483_647 });
  if (!values['sign-key'] && (values['sign-kid'] || values['sign-jku'])) throw new UsageError('--sign-kid and --sign-jku need --sign-key');
  const signCard = values['sign-key'] ? await cardSigner(values['sign-key'], { kid: values['sign-kid'], jku: values['sign-jku'] }) : undefined;
  if (values.agent !== undefined && values.tenants !== undefined) throw new UsageError('--agent and --tenants exclude each other');
  const tenants = values.tenants === undefined ? undefined : await loadTenants(values.tenants);
  const agent = tenants ? undefined : await loadAgent(values.agent ?? 'demo');
  if (!auth) requireAuthConfig(tenants?.tenants ?? { '': agent as NonNullable<typeof agent> });
  const shutdownDelayMs = intOption(values['shutdown-delay-ms'], '--shutdown-delay-ms', { min: 0, max: 600_000 });
  const poolSize = intOption(values['pg-pool-size'], '--pg-pool-size', { min: 1, max: 1000 });
  if (poolSize !== undefined && storeKind(values.store) !== 'postgres') throw new UsageError('--pg-pool-size needs a postgres:// --store');
  if (grpcPort !== undefined) await quietGrpcBindFailure();
  const opened = await withStore(values.store, () => openStore(values.store, { serve: true, ...(poolSize !== undefined ? { poolSize } : {}) }));
  let wired: WiredStore | undefined;
  let retention: ReturnType<typeof startRetention> | undefined;
  let running: RunningAgent<RequestHandlerLike>;
  const accessLog = values['access-log'] ? heldAccessLog((text) => process.stdout.write(text)) : undefined;
  try {
    // R2 (single instance): tasks a crash left running get a definite state before we serve.
    if (opened.spec.kind !== 'postgres' || values['recover-interrupted']) {
      const { recovered, skipped } = await opened.recover();
      if (skipped) console.error(`a2a serve: not recovering interrupted tasks: ${skipped}`);
      else if (recovered.length > 0) console.error(`a2a serve: marked ${recovered.length} interrupted task(s) FAILED`);
    }
    // Several instances on one PostgreSQL: streams follow tasks written by any of them.
    // (PostgresEventBus and leases; the same wiring as in code: wireStore, a2a-kit/node).
    wired = await wireStore(opened, { leaseTtlMs, onBusError: (e) => console.error('a2a serve: event bus error:', e instanceof Error ? e.message : e) });
    retention =
      retentionDays !== undefined && opened.purge
        ? startRetention({
            purge: opened.purge,
            maxAgeMs: retentionDays * 86_400_000,
            onError: (e) => console.error('a2a serve: retention purge failed:', e instanceof Error ? e.message : e),
          })
        : undefined;

    const serveOptions: ServeAgentBaseOptions = {
      port,
      host: values.host,
      ...(values['public-url'] ? { publicUrl: values['public-url'] } : {}),
      ...(tls ? { tls } : {}),
      ...(grpcPort !== undefined ? { grpc: { ...grpcListener, port: grpcPort } } : {}),
      ...(signCard ? { signCard } : {}),
      ...(values.metrics ? { metrics: true } : {}),
      ...(values['no-health'] ? { health: false as const } : {}),
      ...(shutdownDelayMs ? { shutdownDelayMs } : {}),
      ...(trustProxy ? { trustProxy } : {}),
      // One hook for the host, gRPC and the agent: the task's ids and the stack (docs/cli.md).
      onError: (e, context) => console.error(formatError('a2a serve', e, context)),
      handler: {
        ...wired.handler,
        ...(abuseLimits ? { abuseLimits } : {}),
        push,
        ...(maxBody ? { maxBodyBytes: maxBody } : {}),
        ...(taskLimits ? { limits: taskLimits } : {}),
        ...(authRequiredStreamMs ? { authRequiredStreamMs } : {}),
        ...(heartbeatMs ? { heartbeatMs } : {}),
        ...(auth ? { auth: auth.config } : {}),
        ...compatOption(values['no-compat']),
        ...(accessLog ? { onCall: accessLog.hook } : {}),
      },
    };
    running = tenants ? await serveAgent({ ...serveOptions, ...tenants }) : await serveAgent({ ...serveOptions, agent: agent as NonNullable<typeof agent> });
  } catch (error) {
    // Nothing may keep the process alive after a failed start (PostgreSQL pools, LISTEN connection).
    retention?.stop();
    await wired?.close().catch(() => undefined);
    await opened.close().catch(() => undefined);
    throw listenFailure(error, { host: values.host, port, grpcPort }) ?? error;
  }
  // Before the listening output: a supervisor may send SIGTERM as soon as it reads it, and a
  // signal that comes before its handler kills the process without a graceful shutdown.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const card = running.agentCard;
  const baseUrl = running.baseUrl;
  const out = {
    card: baseUrl.replace(/\/$/, '') + AGENT_CARD_PATH,
    jsonrpc: card.supportedInterfaces[0]?.url,
    rest: card.supportedInterfaces[1]?.url,
    ...(running.grpc ? { grpc: card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')?.url } : {}),
    agent: card.name,
    /** Where the listener actually is (differs from the card with --public-url). */
    listening: running.url,
    ...(values.metrics ? { metrics: `${running.url.replace(/\/$/, '')}/metrics` } : {}),
    store: opened.label,
    push: card.capabilities.pushNotifications === true ? pushLabel(push) : 'off',
    ...(tenants ? { tenants: Object.fromEntries(Object.keys(tenants.tenants).map((t) => [t, `${baseUrl.replace(/\/$/, '')}/${t}${AGENT_CARD_PATH}`])) } : {}),
  };
  if (values.json) {
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } else {
    process.stdout.write(
      `${tenants ? `${Object.keys(tenants.tenants).length} agents are` : `${card.name} is`} listening\n  Agent Card  ${tenants && tenants.defaultTenant === undefined ? '(no default tenant)' : out.card}\n${Object.entries(out.tenants ?? {}).map(([t, url]) => `  Tenant      ${t}  ${url}\n`).join('')}  JSON-RPC    ${out.jsonrpc}\n  HTTP+JSON   ${out.rest}\n${out.grpc ? `  gRPC        ${out.grpc}\n` : ''}${out.metrics ? `  Metrics     ${out.metrics}\n` : ''}  Store       ${out.store}\n  Push        ${out.push}\nPress Ctrl+C to stop.\n`,
    );
  }
  // Listening: a reader of stdout that goes away (EPIPE) ends the access log, not the server.
  whenStdoutClosed(() => {
    accessLog?.stop();
    if (accessLog) console.error('a2a serve: stdout was closed (EPIPE): access log stopped; still serving');
  });
  accessLog?.open();
  await stopped;
  await running.close();
  await wired.close();
  retention?.stop();
  await opened.close();
  return 0;
}

/** The card signer of --sign-key; an unreadable or unusable key file is a usage error. */
async function cardSigner(path: string, flags: { kid?: string | undefined; jku?: string | undefined }) {
  const { signCardWith } = await import('../../signing/node.js');
  try {
    return await signCardWith(path, { ...(flags.kid ? { kid: flags.kid } : {}), ...(flags.jku ? { jku: flags.jku } : {}) });
  } catch (error) {
    throw new UsageError(`--sign-key ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The kind of store `--store` names, undefined when it names none (withStore reports that). */
function storeKind(spec: string): StoreSpec['kind'] | undefined {
  try {
    return parseStoreSpec(spec).kind;
  } catch {
    return undefined;
  }
}

export { UsageError };
