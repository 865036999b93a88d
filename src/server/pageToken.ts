/**
 * ListTasks cursors (LIST-02, LIST-12): opaque base64url of the last (timestamp, id) returned
 * plus a fingerprint of the filters, so a token reused with other filters is rejected. The opaque
 * encoding also serves the push config list.
 */
import { isCleanId } from '../protocol/messagePlan.js';
import { invalidField } from '../protocol/errors.js';
import { parseTimestamp } from '../protocol/timestamp.js';
import type { ListTasksRequest } from '../protocol/types.js';

export interface Cursor {
  timestamp: string;
  id: string;
}

function fingerprint(req: ListTasksRequest): string {
  return JSON.stringify([req.tenant ?? '', req.contextId ?? '', req.status ?? '', req.statusTimestampAfter ?? '']);
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(token: string): string {
  const binary = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** An opaque page token: base64url (no padding) of a small JSON object of strings. */
export function encodeOpaqueToken(value: Record<string, string>): string {
  return toBase64Url(JSON.stringify(value));
}

const notAToken = () => invalidField('pageToken', 'is not a valid page token');

/**
 * Reads a token made by encodeOpaqueToken from an object with exactly `keys` (in that order),
 * each a string: the token must be the very one encodeOpaqueToken makes of what it decodes to
 * (canonical base64url of canonical JSON), so nothing else is accepted as one. Anything else is
 * invalid params on `pageToken`.
 */
export function decodeOpaqueToken<K extends string>(token: string, keys: readonly K[]): Record<K, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(token));
  } catch {
    throw notAToken();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw notAToken();
  const p = parsed as Record<string, unknown>;
  const names = Object.keys(p);
  if (names.length !== keys.length || keys.some((k, i) => names[i] !== k || typeof p[k] !== 'string')) throw notAToken();
  const fields = p as Record<K, string>;
  if (encodeOpaqueToken(fields) !== token) throw notAToken();
  return fields;
}

/** A cursor's task id: what the request decoder lets an id be (non-empty, no control characters). */
export function isCursorId(id: string): boolean {
  return id !== '' && isCleanId(id);
}

export function encodePageToken(req: ListTasksRequest, cursor: Cursor): string {
  return encodeOpaqueToken({ t: cursor.timestamp, i: cursor.id, f: fingerprint(req) });
}

/**
 * The cursor of a ListTasks page token: a status timestamp (RFC 3339, or '' for a task stored
 * without one) and a task id, issued for the same filters.
 */
export function decodePageToken(req: ListTasksRequest): Cursor | undefined {
  const token = req.pageToken;
  if (!token) return undefined;
  const p = decodeOpaqueToken(token, ['t', 'i', 'f']);
  if ((p.t !== '' && parseTimestamp(p.t) === undefined) || !isCursorId(p.i)) throw notAToken();
  if (p.f !== fingerprint(req)) throw invalidField('pageToken', 'was issued for different filters');
  return { timestamp: p.t, id: p.i };
}
