/**
 * Reading one push notification: its signature (when secrets are given), its headers and its
 * body as an A2A StreamResponse. The entry point is ./index.ts (`a2a-kit/webhooks`).
 */
import { parseWebhookId } from './webhookId.js';
import { StreamResponseSchema } from '../gen/a2a_pb.js';
import { decodeMessage } from '../protocol/decode.js';
import type { FieldViolation } from '../protocol/errors.js';
import type { StreamResponse } from '../protocol/types.js';
import { constantTimeEqual, headerValue, verifyWebhook, type WebhookHeaders } from '../push/webhookSignature.js';

/** The names of a delivery's headers (lowercase): the Standard Webhooks ones, then A2A's. */
export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
  seq: 'a2a-event-seq',
  taskId: 'a2a-task-id',
  token: 'x-a2a-notification-token',
  authorization: 'authorization',
} as const;

/** A delivery that is not a well-formed A2A push notification (signature aside). */
export class WebhookDeliveryError extends Error {
  constructor(
    readonly reason: 'bad-headers' | 'bad-body',
    message: string,
    readonly fieldViolations: FieldViolation[] = [],
  ) {
    super(message);
  }

  override get name(): string {
    return 'WebhookDeliveryError';
  }
}

export interface ReadDeliveryInput {
  headers: WebhookHeaders;
  /** The raw body, exactly as received. */
  body: string | Uint8Array;
  /** `whsec_…` secrets: when given (non-empty), the signature must verify. */
  secrets?: readonly string[] | undefined;
  /** Signature timestamps: largest distance from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now in unix seconds (tests). */
  now?: number;
}

export interface WebhookDelivery {
  /** webhook-id: `<taskId>.<seq>.c<configId>`, the same on every retry of this event to this config. Dedupe on it. */
  id: string;
  /** The event's position in the task's stream (1, 2, …). */
  seq: number;
  taskId: string;
  /** The push config the delivery is for (from the webhook-id; absent in ids of older servers). */
  configId?: string;
  /** webhook-timestamp (unix seconds): when this attempt was sent. */
  timestamp: number;
  event: StreamResponse;
  /** The signature was checked (secrets were given). */
  verified: boolean;
  /** X-A2A-Notification-Token, when the push config had a token: compare it with yours. */
  token?: string;
  /** Authorization, when the push config had authentication. */
  authorization?: string;
}

/** The task an event is about, as the (signed) body says. */
export function taskIdOf(event: StreamResponse): string | undefined {
  if ('task' in event) return event.task.id;
  if ('statusUpdate' in event) return event.statusUpdate.taskId;
  if ('artifactUpdate' in event) return event.artifactUpdate.taskId;
  return event.message.taskId || undefined;
}

function parseBody(body: string | Uint8Array): StreamResponse {
  let text: string;
  try {
    text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new WebhookDeliveryError('bad-body', 'the body is not UTF-8 text');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WebhookDeliveryError('bad-body', `the body is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    return decodeMessage<StreamResponse>(StreamResponseSchema, json);
  } catch (error) {
    const violations = (error as { fieldViolations?: FieldViolation[] }).fieldViolations ?? [];
    const detail = violations.map((v) => `${v.field} ${v.description}`).join('; ') || (error instanceof Error ? error.message : String(error));
    throw new WebhookDeliveryError('bad-body', `the body is not an A2A StreamResponse: ${detail}`, violations);
  }
}

/**
 * Reads a push notification: verifies its signature when `secrets` are given (throwing
 * WebhookVerificationError: answer 401), then checks the headers and decodes the body as a
 * StreamResponse (throwing WebhookDeliveryError: answer 400).
 *
 * The task id and seq come from the signed webhook-id (webhookId.ts) and body; the
 * unsigned a2a-task-id and a2a-event-seq headers must agree with them when present.
 * Checking the token and Authorization against your own is up to you (they are returned).
 */
export function readDelivery(input: ReadDeliveryInput): WebhookDelivery {
  const { headers } = input;
  let id: string;
  let timestamp: number;
  const verified = input.secrets !== undefined && input.secrets.length > 0;
  if (verified) {
    ({ id, timestamp } = verifyWebhook({
      headers,
      body: input.body,
      secrets: input.secrets ?? [],
      ...(input.toleranceSeconds !== undefined ? { toleranceSeconds: input.toleranceSeconds } : {}),
      ...(input.now !== undefined ? { now: input.now } : {}),
    }));
  } else {
    id = headerValue(headers, WEBHOOK_HEADERS.id)?.trim() ?? '';
    const raw = headerValue(headers, WEBHOOK_HEADERS.timestamp)?.trim() ?? '';
    if (!id) throw new WebhookDeliveryError('bad-headers', 'missing header webhook-id');
    if (!/^\d{1,15}$/.test(raw)) throw new WebhookDeliveryError('bad-headers', raw ? 'webhook-timestamp is not unix seconds' : 'missing header webhook-timestamp');
    timestamp = Number(raw);
  }

  const event = parseBody(input.body);
  const idParts = parseWebhookId(id);
  const seqHeader = headerValue(headers, WEBHOOK_HEADERS.seq)?.trim();
  if (seqHeader !== undefined && !/^\d{1,15}$/.test(seqHeader)) throw new WebhookDeliveryError('bad-headers', `a2a-event-seq is not a number: "${seqHeader.slice(0, 40)}"`);
  const seqText = idParts ? String(idParts.seq) : seqHeader;
  if (seqText === undefined) throw new WebhookDeliveryError('bad-headers', 'no event seq: webhook-id is not <taskId>.<seq>[.c<configId>] and a2a-event-seq is missing');
  if (seqHeader !== undefined && Number(seqHeader) !== Number(seqText)) {
    throw new WebhookDeliveryError('bad-headers', `a2a-event-seq ${seqHeader} does not match webhook-id ${id}`);
  }

  const taskHeader = headerValue(headers, WEBHOOK_HEADERS.taskId)?.trim() || undefined;
  const fromBody = taskIdOf(event);
  const taskId = fromBody ?? idParts?.taskId ?? taskHeader;
  if (!taskId) throw new WebhookDeliveryError('bad-headers', 'no task id: the event names none, webhook-id is not <taskId>.<seq>[.c<configId>] and a2a-task-id is missing');
  for (const [name, value] of [
    ['webhook-id', idParts?.taskId],
    ['a2a-task-id', taskHeader],
  ] as const) {
    if (value !== undefined && value !== taskId) throw new WebhookDeliveryError('bad-headers', `${name} names task ${value}, the event is about task ${taskId}`);
  }

  const delivery: WebhookDelivery = { id, seq: Number(seqText), taskId, timestamp, event, verified };
  if (idParts?.configId !== undefined) delivery.configId = idParts.configId;
  const token = headerValue(headers, WEBHOOK_HEADERS.token);
  if (token !== undefined) delivery.token = token;
  const authorization = headerValue(headers, WEBHOOK_HEADERS.authorization);
  if (authorization !== undefined) delivery.authorization = authorization;
  return delivery;
}

/** Whether `delivery` carries `expected` as its X-A2A-Notification-Token (constant time). */
export function tokenMatches(delivery: Pick<WebhookDelivery, 'token'>, expected: string): boolean {
  return delivery.token !== undefined && constantTimeEqual(delivery.token, expected);
}

/**
 * Whether `delivery` carries the Authorization `expected` (`Bearer xyz`): the scheme compared
 * case-insensitively, the credentials in constant time.
 */
export function authorizationMatches(delivery: Pick<WebhookDelivery, 'authorization'>, expected: string): boolean {
  const split = (value: string) => {
    const m = /^\s*(\S+)(?:\s+(.*?))?\s*$/.exec(value);
    return { scheme: (m?.[1] ?? '').toLowerCase(), credentials: m?.[2] ?? '' };
  };
  if (delivery.authorization === undefined) return false;
  const got = split(delivery.authorization);
  const want = split(expected);
  return constantTimeEqual(got.credentials, want.credentials) && got.scheme === want.scheme;
}
