/**
 * Signed webhook deliveries, the Standard Webhooks way (https://www.standardwebhooks.com):
 *
 *   webhook-id:        <taskId>.<seq>.c<configId>  (stable across retries: the receiver dedupes on it)
 *   webhook-timestamp: <unix seconds>
 *   webhook-signature: v1,<base64 HMAC-SHA256> [v1,<…> …]
 *
 * The signed content is `${id}.${timestamp}.${body}` (the raw body, byte for byte); the HMAC key
 * is the base64-decoded part of a `whsec_…` secret after the prefix. One signature per active
 * secret, so a secret can be rotated on either side without a gap: the receiver accepts a
 * delivery when any listed signature matches any of its secrets.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Why a delivery was refused. */
export type WebhookVerificationReason = 'missing-headers' | 'stale' | 'bad-signature' | 'bad-secret';

/** A delivery that did not verify. The message never contains a secret. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }

  override get name(): string {
    return 'WebhookVerificationError';
  }

  static is(error: unknown): error is WebhookVerificationError {
    return error instanceof WebhookVerificationError;
  }
}

/**
 * Headers as Node (IncomingHttpHeaders), a plain record or the Fetch API has them, or anything
 * with a `header(name)` getter, such as the HttpRequest of a2a-kit's own server (a route of
 * `serveAgent({ routes })`).
 */
export type WebhookHeaders = Record<string, string | string[] | undefined> | Headers | HeaderGetter;

/** A header by lowercase name (repeated headers joined), as HttpRequest has it. */
export interface HeaderGetter {
  header(name: string): string | undefined;
}

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** How far the timestamp may be from the receiver's clock, by default (seconds). */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const SIGNATURE_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A header by name, case-insensitively; repeated headers joined with a space. */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as HeaderGetter).header === 'function') return (headers as HeaderGetter).header(name.toLowerCase());
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const lower = name.toLowerCase();
  let value = Object.hasOwn(record, lower) ? record[lower] : undefined;
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === lower);
    value = key === undefined ? undefined : record[key];
  }
  return Array.isArray(value) ? value.join(' ') : value;
}

/**
 * The HMAC key of a `whsec_…` secret: base64 of 24 to 64 random bytes after the prefix.
 * Throws WebhookVerificationError('bad-secret'); `label` names the secret in the message.
 */
export function webhookSecretKey(secret: string, label = 'the secret'): Buffer {
  const fail = (why: string) =>
    new WebhookVerificationError('bad-secret', `${label} ${why} (expected ${WEBHOOK_SECRET_PREFIX} followed by base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes)`);
  if (typeof secret !== 'string' || !secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw fail(`does not start with ${WEBHOOK_SECRET_PREFIX}`);
  const b64 = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!BASE64.test(b64)) throw fail('is not base64');
  const key = Buffer.from(b64, 'base64');
  // Lenient decoders ignore trailing bits; a secret that does not round-trip is a typo.
  if (key.toString('base64').replace(/=+$/, '') !== b64.replace(/=+$/, '')) throw fail('is not canonical base64');
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) throw fail(`decodes to ${key.length} bytes`);
  return key;
}

/**
 * The HMAC keys of several secrets, each checked by webhookSecretKey; `label(index)` names the
 * one that fails (never its value). Configuration (a2a serve, a2a webhook listen, the push
 * runtime) checks secrets with it up front, so a bad one is refused at start, not per delivery.
 */
export function webhookSecretKeys(secrets: readonly string[], label: (index: number) => string): Buffer[] {
  return secrets.map((s, i) => webhookSecretKey(s, label(i)));
}

function keysOf(secrets: readonly string[]): Buffer[] {
  if (!Array.isArray(secrets) || secrets.length === 0) throw new WebhookVerificationError('bad-secret', 'no signing secret given');
  return webhookSecretKeys(secrets, (i) => (secrets.length === 1 ? 'the secret' : `secret #${i + 1}`));
}

function hmac(key: Buffer, input: { id: string; timestamp: number | string; body: string | Uint8Array }): Buffer {
  return createHmac('sha256', key).update(`${input.id}.${input.timestamp}.`).update(input.body).digest();
}

/** A new signing secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(MIN_KEY_BYTES).toString('base64');
}

/**
 * The `webhook-signature` header value: `v1,<sig>` for each secret, space-separated (during a
 * rotation, sign with the old and the new secret).
 */
export function signWebhook(input: { id: string; timestamp: number; body: string | Uint8Array; secrets: readonly string[] }): string {
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) throw new TypeError('timestamp must be unix seconds (a non-negative integer)');
  return keysOf(input.secrets)
    .map((key) => `v1,${hmac(key, input).toString('base64')}`)
    .join(' ');
}

export interface VerifyWebhookInput {
  headers: WebhookHeaders;
  /** The raw request body, exactly as received (decode it after verifying). */
  body: string | Uint8Array;
  /** The receiver's `whsec_…` secrets; any one matching is enough (rotation). */
  secrets: readonly string[];
  /** Largest accepted distance between webhook-timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in unix seconds (default: the clock). */
  now?: number;
}

/** The signature entries of a `webhook-signature` value: `v1,<base64>` ones, others ignored. */
function v1Signatures(header: string): Buffer[] {
  const out: Buffer[] = [];
  for (const entry of header.split(/\s+/)) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue; // v1a (asymmetric) and future versions
    const b64 = entry.slice(comma + 1).replace(/,$/, '');
    if (!BASE64.test(b64)) continue;
    const sig = Buffer.from(b64, 'base64');
    if (sig.length === SIGNATURE_BYTES) out.push(sig);
  }
  return out;
}

/**
 * Checks a delivery's Standard Webhooks signature. Returns its id and timestamp, or throws
 * WebhookVerificationError with `reason`:
 *   missing-headers  webhook-id, webhook-timestamp or webhook-signature absent or malformed
 *   stale            the timestamp is further than the tolerance from now (past or future)
 *   bad-signature    no v1 signature matches any secret
 *   bad-secret       a secret is not a valid `whsec_…` secret (a configuration error)
 */
export function verifyWebhook(input: VerifyWebhookInput): { id: string; timestamp: number } {
  const keys = keysOf(input.secrets);
  const id = headerValue(input.headers, 'webhook-id')?.trim();
  const rawTimestamp = headerValue(input.headers, 'webhook-timestamp')?.trim();
  const header = headerValue(input.headers, 'webhook-signature')?.trim();
  const missing = [!id && 'webhook-id', !rawTimestamp && 'webhook-timestamp', !header && 'webhook-signature'].filter(Boolean);
  if (missing.length) throw new WebhookVerificationError('missing-headers', `missing header${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  if (!/^\d{1,15}$/.test(rawTimestamp ?? '')) throw new WebhookVerificationError('missing-headers', 'webhook-timestamp is not unix seconds');
  const timestamp = Number(rawTimestamp);
  const tolerance = input.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance) {
    const when = timestamp < now ? `${now - timestamp} s old` : `${timestamp - now} s in the future`;
    throw new WebhookVerificationError('stale', `webhook-timestamp is ${when} (tolerance ${tolerance} s)`);
  }
  const signatures = v1Signatures(header ?? '');
  if (signatures.length === 0) throw new WebhookVerificationError('bad-signature', 'webhook-signature has no v1 signature');
  // Signed as sent: the header's digits, not the number re-printed.
  const signed = { id: id ?? '', timestamp: rawTimestamp ?? '', body: input.body };
  // Every comparison runs (no early exit) so the time taken says nothing about which failed.
  let match = false;
  for (const key of keys) {
    const expected = hmac(key, signed);
    for (const sig of signatures) if (timingSafeEqual(expected, sig)) match = true;
  }
  if (!match) throw new WebhookVerificationError('bad-signature', 'no signature matches the secret' + (keys.length > 1 ? 's' : ''));
  return { id: id ?? '', timestamp };
}

/** Constant-time equality of two strings (tokens, credentials). */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  // Compare against itself when lengths differ, so the time does not depend on the contents.
  return x.length === y.length ? timingSafeEqual(x, y) : (timingSafeEqual(x, x), false);
}
