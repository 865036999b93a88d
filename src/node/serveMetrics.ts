/**
 * serveAgent's `metrics` option: an A2AMetrics registry fed by the handler's `onCall` and push
 * `onDelivery` hooks (beside the ones given), served at `GET /metrics` (or `path`) on the HTTP
 * listener as one of its routes: counted against the per-address rate limit like every route,
 * and unauthenticated — bind it privately or put it behind your proxy (docs/deploy.md).
 */
import { A2AMetrics, DEFAULT_METRICS_PATH, metricsRoute } from '../observability/a2aMetrics.js';
import { combineCallHooks } from '../observability/hooks.js';
import type { CallHook } from '../server/callObserver.js';
import type { HttpRoute } from '../server/http/extraRoutes.js';
import type { PushOptions } from '../push/pushOptions.js';

export interface MetricsOptions {
  /** Where the exposition is served (default /metrics). */
  path?: string;
}

/** What serveAgent adds to the handler's options when metrics are on. */
export interface ServedMetrics {
  metrics: A2AMetrics | undefined;
  onCall: CallHook | undefined;
  onDelivery: PushOptions['onDelivery'];
  routes: readonly HttpRoute[] | undefined;
}

export function servedMetrics(options: {
  metrics?: boolean | MetricsOptions | undefined;
  handler?: { onCall?: CallHook | undefined; push?: Pick<PushOptions, 'onDelivery'> | undefined } | undefined;
  routes?: readonly HttpRoute[] | undefined;
}): ServedMetrics {
  const given = { onCall: options.handler?.onCall, onDelivery: options.handler?.push?.onDelivery, routes: options.routes };
  if (!options.metrics) return { metrics: undefined, ...given };
  const metrics = new A2AMetrics();
  const path = (typeof options.metrics === 'object' ? options.metrics.path : undefined) ?? DEFAULT_METRICS_PATH;
  const userDelivery = given.onDelivery;
  return {
    metrics,
    onCall: combineCallHooks(metrics.onCall, given.onCall),
    onDelivery: userDelivery
      ? (report) => {
          metrics.onDelivery(report);
          userDelivery(report);
        }
      : metrics.onDelivery,
    routes: [...(options.routes ?? []), metricsRoute(metrics, path)],
  };
}
