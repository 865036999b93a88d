/**
 * `a2a-kit/webhooks`: the receiving side of A2A push notifications. An agent POSTs each event
 * of a task (a StreamResponse: task, statusUpdate, artifactUpdate) to the webhook of the push
 * config, signed Standard Webhooks style when the server has signing secrets:
 *
 *   const delivery = readDelivery({ headers: req.headers, body: rawBody, secrets: [process.env.WEBHOOK_SECRET] });
 *   if (seen.has(delivery.id)) return 204;   // a retry of something already handled
 *
 * or, in an a2a-kit server (`serveAgent({ routes })`), a ready route handler:
 *
 *   routes: [{ method: 'POST', path: '/webhooks/a2a', handle: webhookHandler({ secrets, onDelivery }) }]
 *
 * Verify the raw body before parsing it: re-serialized JSON does not match the signature.
 */
export { parseWebhookId, webhookId } from './webhookId.js';
export {
  WEBHOOK_HEADERS,
  WebhookDeliveryError,
  authorizationMatches,
  readDelivery,
  taskIdOf,
  tokenMatches,
  type ReadDeliveryInput,
  type WebhookDelivery,
} from './readDelivery.js';
export { webhookHandler, type WebhookHandlerOptions } from './webhookHandler.js';
export { WebhookRefusal, type DeliveryChecks } from './deliveryChecks.js';
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  WEBHOOK_SECRET_PREFIX,
  WebhookVerificationError,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  type HeaderGetter,
  type VerifyWebhookInput,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from '../push/webhookSignature.js';
