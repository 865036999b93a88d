/**
 * What a webhook receiver checks on each delivery and the status it answers when one fails
 * (docs/push.md, "Receiving deliveries"): the signature (401), the token and Authorization
 * (401), the headers and body (400). One piece of code for `webhookHandler()` and
 * `a2a webhook listen`.
 */
import { webhookSecretKeys, WebhookVerificationError, type WebhookHeaders } from '../push/webhookSignature.js';
import { authorizationMatches, readDelivery, tokenMatches, WebhookDeliveryError, type WebhookDelivery } from './readDelivery.js';

export interface DeliveryChecks {
  /** `whsec_…` secrets: the webhook-signature must match one of them (a key rotation lists two). */
  secrets?: readonly string[] | undefined;
  /** The push config's `token`: X-A2A-Notification-Token must be it. */
  token?: string | undefined;
  /** The push config's authentication, `<scheme> <credentials>`: Authorization must be it. */
  authorization?: string | undefined;
  /** Largest signature age or clock skew accepted, in seconds (default 300). */
  toleranceSeconds?: number | undefined;
}

/** A request the receiver refuses, with the HTTP status to answer. The message never holds a secret. */
export class WebhookRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }

  override get name(): string {
    return 'WebhookRefusal';
  }
}

/** Throws at configuration time when a secret is malformed or `token`/`authorization` is empty; `label(i)` names the bad secret. */
export function checkReceiverConfig(checks: DeliveryChecks, label: (index: number) => string): void {
  webhookSecretKeys(checks.secrets ?? [], label);
  if (checks.token === '') throw new TypeError('token must not be empty');
  if (checks.authorization !== undefined && !checks.authorization.trim()) throw new TypeError('authorization must be "<scheme> <credentials>", e.g. "Bearer xyz"');
}

/** The delivery when every check passes, else throws WebhookRefusal (401, 400; 500 for a bad secret of ours). */
export function checkDelivery(checks: DeliveryChecks, request: { headers: WebhookHeaders; body: string | Uint8Array }): WebhookDelivery {
  let delivery: WebhookDelivery;
  try {
    delivery = readDelivery({
      headers: request.headers,
      body: request.body,
      secrets: checks.secrets,
      ...(checks.toleranceSeconds !== undefined ? { toleranceSeconds: checks.toleranceSeconds } : {}),
    });
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw new WebhookRefusal(error.reason === 'bad-secret' ? 500 : 401, `${error.reason}: ${error.message}`);
    if (error instanceof WebhookDeliveryError) throw new WebhookRefusal(400, `${error.reason}: ${error.message}`);
    throw error;
  }
  if (checks.token !== undefined && !tokenMatches(delivery, checks.token)) {
    throw new WebhookRefusal(401, delivery.token === undefined ? 'missing X-A2A-Notification-Token' : 'X-A2A-Notification-Token does not match');
  }
  if (checks.authorization !== undefined && !authorizationMatches(delivery, checks.authorization)) {
    throw new WebhookRefusal(401, delivery.authorization === undefined ? 'missing Authorization' : 'Authorization does not match');
  }
  return delivery;
}

/** The webhook-ids received, for deduplication: at most `max`, the oldest forgotten first. */
export class RememberedIds {
  private readonly ids = new Set<string>();

  constructor(private readonly max: number) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value as string);
  }
}
