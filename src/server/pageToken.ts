/**
 * ListTasks cursors (LIST-02, LIST-12): opaque base64url of the last (timestamp, id) returned
 * plus a fingerprint of the filters, so a token reused with other filters is rejected. The opaque
 * encoding also serves the push config list.
 */
import { invalidField } from '../protocol/errors.js';
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

/** An opaque page token: base64url of a small JSON object. */
export function encodeOpaqueToken(value: Record<string, string>): string {
  return toBase64Url(JSON.stringify(value));
}

/** Reads a token made by encodeOpaqueToken; anything else is invalid params on `pageToken`. */
export function decodeOpaqueToken(token: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(token));
  } catch {
    throw invalidField('pageToken', 'is not a valid page token');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidField('pageToken', 'is not a valid page token');
  return parsed as Record<string, unknown>;
}

export function encodePageToken(req: ListTasksRequest, cursor: Cursor): string {
  return encodeOpaqueToken({ t: cursor.timestamp, i: cursor.id, f: fingerprint(req) });
}

export function decodePageToken(req: ListTasksRequest): Cursor | undefined {
  const token = req.pageToken;
  if (!token) return undefined;
  const p = decodeOpaqueToken(token);
  if (typeof p.t !== 'string' || typeof p.i !== 'string') throw invalidField('pageToken', 'is not a valid page token');
  if (p.f !== fingerprint(req)) throw invalidField('pageToken', 'was issued for different filters');
  return { timestamp: p.t, id: p.i };
}
