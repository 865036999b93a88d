/**
 * The HTTP health probes (docs/deploy.md, "Health probes"), as routes beside the agent
 * (extraRoutes.ts, so they are body-capped, but they do not count against the per-address request
 * rate, R25: a client spending the budget of an address it shares with others — every client
 * behind a load balancer — must not make the instance look dead): GET or HEAD `/healthz` — liveness, 200 whenever the process answers — and `/readyz`
 * — readiness from ServerHealth: 200, or 503 with Retry-After and the reason (`draining`,
 * `store unreachable`). No credentials are asked for, answers are not cacheable
 * (`Cache-Control: no-store`; the store check itself is shared and briefly reused by
 * ServerHealth), and a body says the status and reason only (never an error's message or stack).
 */
import type { Readiness, ServerHealth } from '../serverHealth.js';
import type { HttpRoute } from './extraRoutes.js';
import type { HttpResponse } from './httpTypes.js';

export interface HealthRouteOptions {
  /** Liveness probe path (default /healthz). */
  livenessPath?: string;
  /** Readiness probe path (default /readyz). */
  readinessPath?: string;
}

export const DEFAULT_LIVENESS_PATH = '/healthz';
export const DEFAULT_READINESS_PATH = '/readyz';

/** Seconds a prober is asked to wait before asking again after NOT_SERVING. */
const RETRY_AFTER_SECONDS = '1';

export function healthRoutes(health: ServerHealth, options: HealthRouteOptions = {}): HttpRoute[] {
  const live = (): HttpResponse => probeAnswer({ status: 'SERVING' });
  const ready = async (): Promise<HttpResponse> => probeAnswer(await health.readiness());
  return [
    ...getAndHead(options.livenessPath ?? DEFAULT_LIVENESS_PATH, live),
    ...getAndHead(options.readinessPath ?? DEFAULT_READINESS_PATH, ready),
  ];
}

function getAndHead(path: string, handle: HttpRoute['handle']): HttpRoute[] {
  return [
    { method: 'GET', path, handle, rateLimited: false },
    { method: 'HEAD', path, handle, rateLimited: false },
  ];
}

function probeAnswer(readiness: Readiness): HttpResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (readiness.status === 'SERVING') return { status: 200, headers, body: '{"status":"SERVING"}' };
  headers['retry-after'] = RETRY_AFTER_SECONDS;
  return { status: 503, headers, body: JSON.stringify(readiness) };
}
