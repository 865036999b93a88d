/**
 * Prometheus metrics of an A2A server, fed by the `onCall` hook (and the push dispatcher's
 * `onDelivery`); gauges are read from the request handler when scraped. Labels come from fixed
 * sets only (binding, operation, outcome = `ok` or an ErrorInfo reason, delivery outcome): never
 * a tenant, a task id or a principal. docs/deploy.md "Metrics and logs" lists the metrics.
 */
import { OPERATIONS } from '../protocol/operations.js';
import type { OperationName } from '../protocol/types.js';
import type { DeliveryReport } from '../push/dispatcher.js';
import type { CallHook, CallObserver, CallRecord } from '../server/callObserver.js';
import type { HttpRoute } from '../server/http/extraRoutes.js';
import { Counter, Gauge, Histogram, PROMETHEUS_CONTENT_TYPE, renderFamilies, type MetricFamily } from './prometheusText.js';

/** Seconds: 1 ms to 10 s. */
export const CALL_DURATION_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const DEFAULT_METRICS_PATH = '/metrics';

/** What the gauges are read from: an A2ARequestHandler or a TenantRouter (`handler.requestHandler`). */
export interface MetricsSource {
  readonly calls?: CallObserver | undefined;
  readonly runsActive?: number | undefined;
}

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
const REASON = /^[A-Z][A-Z_]{0,63}$/;

export class A2AMetrics {
  private readonly calls = new Counter('a2a_calls_total', 'A2A calls ended, by binding, operation and outcome (ok or the ErrorInfo reason).', ['binding', 'operation', 'outcome']);
  private readonly durations = new Histogram('a2a_call_duration_seconds', 'Duration of unary A2A calls, authentication included.', {
    labelNames: ['binding', 'operation'],
    buckets: CALL_DURATION_BUCKETS,
  });
  private readonly streamsOpen = new Gauge('a2a_streams_open', 'Streams (SendStreamingMessage, SubscribeToTask) open now.', ['binding']);
  private readonly streamEvents = new Counter('a2a_stream_events_total', 'Events written to streams, counted when each stream ends.', ['binding']);
  private readonly runsActive = new Gauge('a2a_task_runs_active', 'Agent runs in progress on this instance.');
  private readonly deliveries = new Counter('a2a_push_deliveries_total', 'Push notification delivery attempts, by outcome (delivered, retried, dead_letter, disabled).', ['outcome']);
  private readonly families: readonly MetricFamily[] = [this.calls, this.durations, this.streamsOpen, this.streamEvents, this.runsActive, this.deliveries];
  private source: () => MetricsSource | undefined = () => undefined;

  constructor() {
    for (const binding of BINDINGS) this.streamsOpen.set([binding], 0);
    this.runsActive.set([], 0);
  }

  /** The `onCall` hook to give the handler (createA2AHandler / serveAgent `handler.onCall`). */
  readonly onCall: CallHook = (call: CallRecord) => {
    const binding = call.binding ?? 'none';
    const operation = OPERATIONS.has(call.operation as OperationName) ? call.operation : 'other';
    const outcome = call.outcome === 'ok' || REASON.test(call.outcome) ? call.outcome : 'other';
    this.calls.inc([binding, operation, outcome]);
    if (call.events === undefined) this.durations.observe([binding, operation], call.durationMs / 1000);
    else if (call.events > 0) this.streamEvents.inc([binding], call.events);
  };

  /** The push `onDelivery` hook (`handler.push.onDelivery`). */
  readonly onDelivery = (report: Pick<DeliveryReport, 'verdict'>): void => {
    const action = report.verdict.action;
    this.deliveries.inc([action === 'complete' ? 'delivered' : action === 'retry' ? 'retried' : action === 'disable' ? 'disabled' : 'dead_letter']);
  };

  /** Where the gauges are read when scraped: the request handler the hook was given to (or a function returning it). */
  track(source: MetricsSource | (() => MetricsSource | undefined)): this {
    this.source = typeof source === 'function' ? source : () => source;
    return this;
  }

  /** The exposition (text format 0.0.4); serve it with `METRICS_CONTENT_TYPE`. */
  text(): string {
    const source = this.source();
    if (source) {
      this.runsActive.set([], source.runsActive ?? 0);
      const open = source.calls?.openStreams;
      for (const binding of BINDINGS) this.streamsOpen.set([binding], open?.get(binding) ?? 0);
    }
    return renderFamilies(this.families);
  }
}

export const METRICS_CONTENT_TYPE = PROMETHEUS_CONTENT_TYPE;

/** `GET path` answering `metrics.text()`: a route for createA2AHandler / serveAgent `routes`. */
export function metricsRoute(metrics: A2AMetrics, path = DEFAULT_METRICS_PATH): HttpRoute {
  return {
    method: 'GET',
    path,
    // Not charged to the per-address request rate (R25): a scrape must not fail because a client shares the scraper's address.
    rateLimited: false,
    handle: () => ({ status: 200, headers: { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' }, body: metrics.text() }),
  };
}
