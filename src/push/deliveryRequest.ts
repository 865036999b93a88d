/**
 * The request of one webhook delivery (PUSHD-01..03, R13, D1): the body, the A2A media type, the
 * config's `Authorization` and token, a stable id and the event's sequence number so receivers
 * can deduplicate and order, and, when signing secrets are configured, a Standard Webhooks
 * signature.
 *
 * A config registered by an A2A 0.3 client (`dialect: '0.3'`) gets what 0.3 receivers expect
 * (digest §5.7, and what the 0.3 SDKs send): the Task in the 0.3 shape (`kind: "task"`, lowercase
 * states) as it is when the delivery is made, `Content-Type: application/json`, the token in
 * `X-A2A-Notification-Token`. The id, seq and signature headers are the same for both.
 */
import { webhookId } from '../webhooks/webhookId.js';
import { streamResponseToV03 } from '../compat/events.js';
import { taskToV03 } from '../compat/objects.js';
import type { Task } from '../protocol/types.js';
import type { PushDelivery, StoredPushConfig } from '../server/stores/pushStore.js';
import { signWebhook } from './webhookSignature.js';

export const PUSH_CONTENT_TYPE = 'application/a2a+json';

export interface DeliveryRequest {
  body: string;
  headers: Record<string, string>;
}

export function deliveryRequest(input: {
  delivery: PushDelivery;
  config: StoredPushConfig;
  /** The task now (0.3 payloads); undefined when it is gone. */
  task?: Task | undefined;
  signingSecrets: string[];
}): DeliveryRequest {
  const { delivery, config } = input;
  const v03 = config.dialect === '0.3';
  const body = v03 ? JSON.stringify(input.task ? taskToV03(input.task) : streamResponseToV03(delivery.event)) : JSON.stringify(delivery.event);
  const id = webhookId(delivery.taskId, delivery.seq, delivery.configId);
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': v03 ? 'application/json' : PUSH_CONTENT_TYPE,
    'user-agent': 'a2a-kit-push/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'a2a-task-id': delivery.taskId,
    'a2a-event-seq': String(delivery.seq),
  };
  if (!v03) headers['a2a-version'] = '1.0';
  if (config.authentication) {
    const credentials = config.authentication.credentials;
    headers.authorization = credentials ? `${config.authentication.scheme} ${credentials}` : config.authentication.scheme;
  }
  if (config.token) headers['x-a2a-notification-token'] = config.token;
  if (input.signingSecrets.length > 0) {
    headers['webhook-signature'] = signWebhook({ id, timestamp, body, secrets: input.signingSecrets });
  }
  return { body, headers };
}
