/**
 * Fetching small JSON documents (JWKS, discovery) with a byte cap, a time limit and no
 * redirects. Runtime-neutral (WHATWG fetch and streams only, no `node:*`), so the server core,
 * the authenticator and the card verifier share it on every runtime; the Node-only
 * SSRF-guarded fetch is ./guardedFetch.ts. The capped reading itself is ./cappedRead.ts.
 */
import { readCappedResponse } from './cappedRead.js';
import { redactUrl } from './redactUrl.js';

/** The caller's signal and the deadline as one signal (AbortSignal.any is Node >= 20.3). */
export function deadlineSignal(timeoutMs: number, caller: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  if (!caller) return timeout;
  const any = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any;
  if (any) return any([caller, timeout]);
  const controller = new AbortController();
  for (const signal of [caller, timeout]) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

export interface CappedJsonRequest {
  /** Largest body read; past it the download is aborted and the fetch fails. */
  maxBytes: number;
  /** Time limit of the whole exchange, body included. */
  timeoutMs: number;
  /** The Accept header. */
  accept: string;
  signal?: AbortSignal | undefined;
}

/**
 * GET `url` with the runtime's fetch: no redirects, `timeoutMs` for everything, the body
 * streamed up to `maxBytes` (aborted beyond), a 2xx status, then JSON. Errors name the URL
 * redacted (./redactUrl.ts).
 */
export async function fetchCappedJson(url: string, request: CappedJsonRequest): Promise<unknown> {
  const signal = deadlineSignal(request.timeoutMs, request.signal);
  const res = await fetch(url, { headers: { accept: request.accept }, redirect: 'error', signal });
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`GET ${redactUrl(url)} answered HTTP ${res.status}`);
  }
  const bytes = await readCappedResponse(res, request.maxBytes);
  if (!bytes) throw new Error(`GET ${redactUrl(url)}: document larger than ${request.maxBytes} bytes`);
  return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
}
