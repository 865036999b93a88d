/**
 * An access log on the `onCall` hook: one JSON object per ended call, for `a2a serve
 * --access-log` or your own writer. Only what CallRecord holds: no headers, bodies, tokens or
 * query strings.
 */
import type { CallHook, CallRecord } from '../server/callObserver.js';

/** One access log line (without the newline). */
export function accessLogLine(call: CallRecord, now: Date = new Date()): string {
  return JSON.stringify({
    time: now.toISOString(),
    binding: call.binding ?? null,
    operation: call.operation,
    version: call.protocolVersion,
    tenant: call.tenant,
    principal: call.principal ?? null,
    outcome: call.outcome,
    duration_ms: Math.round(call.durationMs * 1000) / 1000,
    ...(call.events !== undefined ? { events: call.events } : {}),
    ...(call.streamEnd ? { stream_end: call.streamEnd } : {}),
    task_id: call.taskId ?? null,
    remote_address: call.remoteAddress ?? null,
  });
}

/** A hook writing one line per call (`write` gets the line with its newline). */
export function accessLog(write: (line: string) => void): CallHook {
  return (call) => write(`${accessLogLine(call)}\n`);
}
