/**
 * Local client failures (architecture decision 4): things that went wrong on this side of the
 * wire or below the protocol — a timeout, an abort, an unreachable host, an unusable card, a
 * stream cut short, a response that is not A2A. Protocol errors the agent reported arrive as
 * the typed A2AError classes instead, whatever the binding.
 */

export type A2AClientErrorCode =
  /** The call's `timeoutMs` elapsed, or its signal came from AbortSignal.timeout(). */
  | 'TIMEOUT'
  /** The caller's AbortSignal fired. */
  | 'ABORTED'
  /** The request could not be sent or the connection failed. */
  | 'NETWORK'
  /** An HTTP failure that carries no A2A error (a proxy's 502 page, a bare 503). */
  | 'HTTP'
  /** The agent card could not be fetched or is not an AgentCard. */
  | 'BAD_CARD'
  /** The agent card is signed but no signature verifies, or it is unsigned and a signature is required. */
  | 'BAD_CARD_SIGNATURE'
  /** The card lists no interface this client can use (binding and protocol version). */
  | 'NO_COMPATIBLE_INTERFACE'
  /** A task stream ended before a terminal or interrupted state and could not be resumed. */
  | 'STREAM_CLOSED'
  /** The agent answered with something that is not a valid response of the operation. */
  | 'INVALID_RESPONSE'
  /** Credentials could not be obtained (e.g. the OAuth2 token endpoint refused). */
  | 'AUTH';

const BRAND = Symbol.for('a2a-kit.A2AClientError');

export interface ResponseInfo {
  /** The HTTP status (or its equivalent for non-HTTP transports). */
  status: number;
  /** Retry-After, in milliseconds, when the response carried one. */
  retryAfterMs?: number;
}

export class A2AClientError extends Error {
  readonly code: A2AClientErrorCode;
  /** HTTP status, when a response was received. */
  readonly status: number | undefined;

  constructor(code: A2AClientErrorCode, message: string, options: { cause?: unknown; status?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    Object.defineProperty(this, BRAND, { value: true });
  }

  override get name(): string {
    return 'A2AClientError';
  }

  /** True for A2AClientError instances, also across copies of this package. */
  static is(value: unknown, code?: A2AClientErrorCode): value is A2AClientError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[BRAND] === true &&
      (code === undefined || (value as A2AClientError).code === code)
    );
  }
}

/**
 * A card whose signature did not verify (SIGN-07/08): `reason` says why (`bad-signature`,
 * `unknown-key`, `alg-not-allowed`, `unsigned`...), `kid` which key was involved.
 */
export class CardVerificationError extends A2AClientError {
  readonly reason: string;
  readonly kid: string | undefined;

  constructor(message: string, init: { reason: string; kid?: string | undefined; cause?: unknown }) {
    super('BAD_CARD_SIGNATURE', message, init.cause === undefined ? {} : { cause: init.cause });
    this.reason = init.reason;
    this.kid = init.kid;
  }

  override get name(): string {
    return 'CardVerificationError';
  }
}

const RESPONSES = new WeakMap<object, ResponseInfo>();
const NOT_SENT = new WeakSet<object>();

/** Marks an error the client raised itself instead of sending the call (e.g. ListTasks to a 0.3 agent). */
export function notSent<E extends Error>(error: E): E {
  NOT_SENT.add(error);
  return error;
}

/** True for an error the client raised itself: nothing reached the agent (`notSent`). */
export function wasNotSent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && NOT_SENT.has(error);
}

/** Records the response an error came from (status, Retry-After) for retries and callers. */
export function withResponse<E extends Error>(error: E, info: ResponseInfo): E {
  RESPONSES.set(error, info);
  return error;
}

/** The HTTP status (and Retry-After) behind an error, when it came from a response. */
export function responseInfo(error: unknown): ResponseInfo | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const info = RESPONSES.get(error);
  if (info) return info;
  return A2AClientError.is(error) && error.status !== undefined ? { status: error.status } : undefined;
}
