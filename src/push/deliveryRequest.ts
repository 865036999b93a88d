/**
 * The headers of one webhook delivery (PUSHD-01..03, R13, D1): the A2A media type, the config's
 * `Authorization` and token, a stable id and the event's sequence number so receivers can
 * deduplicate and order, and, when signing secrets are configured, a Standard Webhooks signature.
 */
import type { PushDelivery, StoredPushConfig } from '../server/stores/pushStore.js';
import { signWebhook } from './webhookSignature.js';

export const PUSH_CONTENT_TYPE = 'application/a2a+json';

export function deliveryHeaders(input: {
  delivery: PushDelivery;
  config: StoredPushConfig;
  body: string;
  signingSecrets: string[];
}): Record<string, string> {
  const { delivery, config } = input;
  const id = `${delivery.taskId}.${delivery.seq}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': PUSH_CONTENT_TYPE,
    'user-agent': 'a2a-kit-push/1',
    'a2a-version': '1.0',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'a2a-task-id': delivery.taskId,
    'a2a-event-seq': String(delivery.seq),
  };
  if (config.authentication) {
    const credentials = config.authentication.credentials;
    headers.authorization = credentials ? `${config.authentication.scheme} ${credentials}` : config.authentication.scheme;
  }
  if (config.token) headers['x-a2a-notification-token'] = config.token;
  if (input.signingSecrets.length > 0) {
    headers['webhook-signature'] = signWebhook({ id, timestamp, body: input.body, secrets: input.signingSecrets });
  }
  return headers;
}
