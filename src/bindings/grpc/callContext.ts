/**
 * What a gRPC call tells the request handler: its CallContext (service parameters read from the
 * metadata and negotiated exactly as over HTTP, GRPC-02 / R20; the call's abort signal; the
 * peer address) and, when the card asks for it, its credentials (SEC-02).
 */
import type { Metadata } from '@grpc/grpc-js';
import type { PeerCertificate as NodePeerCertificate } from 'node:tls';
import type { Authenticator, PeerCertificate } from '../../auth/authConfig.js';
import { fromNodeCertificate } from '../../auth/nodeCertificate.js';
import type { AbuseLimits } from '../../server/abuseLimits.js';
import type { CallObservation, CallObserver } from '../../server/callObserver.js';
import { authenticateCall } from '../authenticateCall.js';
import { parseLastEventId, requestedExtensions } from '../../protocol/serviceParams.js';
import type { Dialect } from '../../compat/detect.js';
import type { ServedVersions } from '../servedVersions.js';
import type { CallContext } from '../../server/requestHandler.js';
import { LAST_EVENT_ID_KEY } from './codec.js';
import type { TrustedProxies } from '../../net/trustedProxies.js';

/** One service parameter; repeated entries are joined with ", " as HTTP joins repeated headers. */
export function metadataValue(metadata: Metadata, key: string): string | undefined {
  const values = metadata.get(key);
  if (values.length === 0) return undefined;
  const first = values[0];
  if (values.length === 1 && typeof first === 'string') return first;
  return values.map((v) => (typeof v === 'string' ? v : v.toString('utf8'))).join(', ');
}

/** What a call offers for authentication. */
interface AuthCall {
  metadata: Metadata;
  getAuthContext?: () => { sslPeerCertificate?: NodePeerCertificate } | null;
}

/**
 * SEC-02 over gRPC: the credentials in the metadata and the TLS client certificate, checked
 * before the handler runs; failures are UNAUTHENTICATED / PERMISSION_DENIED, charged to the
 * peer address's abuse limit like over HTTP (authenticateCall).
 */
export async function authenticate(
  authenticator: Authenticator,
  call: AuthCall & { ctx: CallContext; operation: string; handler: { readonly abuseLimits?: AbuseLimits | undefined; readonly calls?: CallObserver | undefined } },
): Promise<void> {
  const input = { header: (name: string) => metadataValue(call.metadata, name), peerCertificate: peerCertificate(call), operation: call.operation };
  await authenticateCall({ authenticator, handler: call.handler, input, ctx: call.ctx });
}

/**
 * grpc-js reports the client certificate only when the listener verified it (`authorized`);
 * an untrusted or missing certificate is simply absent.
 */
function peerCertificate(call: AuthCall): PeerCertificate | undefined {
  const cert = call.getAuthContext?.()?.sslPeerCertificate;
  return cert?.raw ? fromNodeCertificate(cert, true) : undefined;
}

/** What a call context needs of its service: the versions it negotiates, the proxies it trusts. */
export interface ContextEnv {
  /** The listener's versions (0.3 among them when its 0.3 service is served), as over HTTP. */
  versions: ServedVersions;
  /** The shape of the service's requests: `lf.a2a.v1` 1.0, `a2a.v1` 0.3. */
  dialect: Dialect;
  proxies: TrustedProxies | undefined;
}

/** What a call context reads from a grpc-js call. */
interface ContextCall {
  metadata: Metadata;
  cancelled: boolean;
  getPeer(): string;
  once(event: 'cancelled', listener: () => void): unknown;
}

/**
 * The CallContext of a gRPC call. A class, not an object literal with getters: such a literal
 * gets a hidden class of its own on every call, and every read of it in the handler is slow.
 */
export class GrpcCallContext implements CallContext {
  protocolVersion: string;
  requestedExtensions: readonly string[];
  lastEventId: number | undefined = undefined;
  principal: CallContext['principal'] = undefined;
  authChecked = false;
  readonly binding = 'GRPC' as const;
  observation: CallObservation | undefined = undefined;
  /** Made on first use of `signal`, aborted when the client cancels, the deadline passes or abort() is called. */
  private controller: AbortController | undefined;
  private aborted = false;
  /** The call was answered (answered()). */
  private wasAnswered = false;

  constructor(
    private readonly env: ContextEnv,
    private readonly call: ContextCall,
  ) {
    const metadata = call.metadata;
    // The service says the request's shape, as a REST path or a JSON-RPC method name does (R20).
    this.protocolVersion = env.versions.negotiate({ header: metadataValue(metadata, 'a2a-version') ?? null, structure: env.dialect }, true);
    this.requestedExtensions = requestedExtensions(this.protocolVersion, (name) => metadataValue(metadata, name));
    this.lastEventId = parseLastEventId(metadataValue(metadata, LAST_EVENT_ID_KEY));
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const c = new AbortController();
      this.controller = c;
      if (this.aborted || this.call.cancelled) c.abort();
      // grpc-js also reports 'cancelled' after a call it completed: only an open call aborts.
      else this.call.once('cancelled', () => this.wasAnswered || c.abort());
    }
    return this.controller.signal;
  }

  /** The call was answered: a 'cancelled' grpc-js reports after that is not a cancellation. */
  answered(): void {
    this.wasAnswered = true;
  }

  /** Ends the call's work early (server shutdown): the signal aborts, now or when first read. */
  abort(): void {
    this.aborted = true;
    this.controller?.abort();
  }

  // Lazy: only the abuse limits of anonymous callers, the access log and onCall read it.
  get remoteAddress(): string {
    const peer = peerAddress(this.call.getPeer());
    const proxies = this.env.proxies;
    return proxies ? (proxies.clientAddress(peer, metadataValue(this.call.metadata, 'x-forwarded-for')) ?? peer) : peer;
  }
}

/** The remote address of a grpc-js peer ("ipv4:1.2.3.4:5678" → "1.2.3.4"). */
export function peerAddress(peer: string): string {
  return peer.replace(/^ipv[46]:/, '').replace(/:\d+$/, '');
}
