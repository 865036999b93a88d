/** Observing an A2A server: the `onCall` hook's records, Prometheus metrics, an access log. */
export type { CallBinding, CallHook, CallRecord, StreamEnd } from '../server/callObserver.js';
export { A2AMetrics, CALL_DURATION_BUCKETS, DEFAULT_METRICS_PATH, METRICS_CONTENT_TYPE, metricsRoute, type MetricsSource } from './a2aMetrics.js';
export { ACCESS_LOG_FIELD_MAX, accessLog, accessLogLine } from './accessLog.js';
export { combineCallHooks } from './hooks.js';
export { Counter, Gauge, Histogram, PROMETHEUS_CONTENT_TYPE, escapeLabel, renderFamilies } from './prometheusText.js';
