/**
 * An access log on the `onCall` hook: one JSON object per ended call, for `a2a serve
 * --access-log` or your own writer. Only what CallRecord holds: no headers, bodies, tokens or
 * query strings. Every string field is capped at ACCESS_LOG_FIELD_MAX characters, so a line stays
 * a few KiB whatever the request held (container log drivers split lines over 16 KiB).
 */
import type { CallHook, CallRecord } from '../server/callObserver.js';

/** The characters a string field keeps; a longer value ends with `…[truncated N chars]`. */
export const ACCESS_LOG_FIELD_MAX = 256;

/** One access log line (without the newline). */
export function accessLogLine(call: CallRecord, now: Date = new Date()): string {
  return JSON.stringify({
    time: now.toISOString(),
    binding: call.binding ?? null,
    operation: capped(call.operation),
    version: capped(call.protocolVersion),
    tenant: capped(call.tenant),
    principal: call.principal === undefined ? null : capped(call.principal),
    outcome: capped(call.outcome),
    duration_ms: Math.round(call.durationMs * 1000) / 1000,
    ...(call.events !== undefined ? { events: call.events } : {}),
    ...(call.streamEnd ? { stream_end: call.streamEnd } : {}),
    task_id: call.taskId === undefined ? null : capped(call.taskId),
    remote_address: call.remoteAddress === undefined ? null : capped(call.remoteAddress),
  });
}

/** A hook writing one line per call (`write` gets the line with its newline). */
export function accessLog(write: (line: string) => void): CallHook {
  return (call) => write(`${accessLogLine(call)}\n`);
}

/** `value`, or its first ACCESS_LOG_FIELD_MAX characters (never half a surrogate pair) and a marker. */
function capped(value: string): string {
  if (value.length <= ACCESS_LOG_FIELD_MAX) return value;
  let end = ACCESS_LOG_FIELD_MAX;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${value.slice(0, end)}…[truncated ${value.length - end} chars]`;
}
