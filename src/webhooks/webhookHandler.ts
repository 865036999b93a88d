/**
 * A ready webhook receiver for a route of an a2a-kit server (`serveAgent({ routes })`, or any
 * host of HttpRequest/HttpResponse): checks each delivery (deliveryChecks.ts), hands a new one
 * to `onDelivery`, and answers as the sender expects (PUSHD-05, PUSHD-07): 204 once handled or
 * when the webhook-id was already handled (a retry), 401 when it is not authentic, 400 when it
 * is not an A2A push notification, 405 for another method, 413 past the body limit. When
 * `onDelivery` throws, the error goes to the host (which answers 500 and reports it), the id
 * is not remembered, and the sender's retry gets another chance.
 */
import { PayloadTooLargeError, ParseError } from '../protocol/errors.js';
import type { HttpRequest, HttpResponse } from '../server/http/httpTypes.js';
import { RequestAbortedError } from '../server/http/requestAborted.js';
import { checkDelivery, checkReceiverConfig, RememberedIds, WebhookRefusal, type DeliveryChecks } from './deliveryChecks.js';
import type { WebhookDelivery } from './readDelivery.js';

export interface WebhookHandlerOptions extends DeliveryChecks {
  /**
   * Called once per webhook-id with the verified, decoded delivery (`delivery.event` is the
   * StreamResponse). Resolve once the event is handled: the sender then hears 204. Throw (or
   * reject) to have the sender retry it later.
   */
  onDelivery(delivery: WebhookDelivery, request: HttpRequest): void | Promise<void>;
  /** Told of each refused request (status and reason, never a secret), for logging. */
  onRefusal?: (refusal: WebhookRefusal, request: HttpRequest) => void;
  /** Largest body read, in bytes (default 1 MiB); a server's own `maxBodyBytes` applies too. */
  maxBodyBytes?: number;
  /** How many webhook-ids are remembered for deduplication (default 10,000; the oldest forgotten first). */
  rememberIds?: number;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_REMEMBERED = 10_000;
const NO_CONTENT: HttpResponse = { status: 204, headers: {} };

/**
 * `(request) => response` for a webhook route. Refused at construction: a malformed secret,
 * an empty token, and a handler that would check nothing (no `secrets`, `token` nor
 * `authorization`: anyone could post events to it).
 */
export function webhookHandler(options: WebhookHandlerOptions): (request: HttpRequest) => Promise<HttpResponse> {
  checkReceiverConfig(options, (i) => `secrets[${i}]`);
  if (!options.secrets?.length && options.token === undefined && options.authorization === undefined) {
    throw new TypeError('webhookHandler: give secrets, token or authorization, or anyone can post events to it');
  }
  const checks: DeliveryChecks = { ...options, secrets: [...(options.secrets ?? [])] };
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const handled = new RememberedIds(options.rememberIds ?? DEFAULT_REMEMBERED);
  /** Deliveries being handled: a retry arriving meanwhile waits for the same outcome. */
  const handling = new Map<string, Promise<void>>();

  async function receive(request: HttpRequest): Promise<HttpResponse> {
    if (request.method !== 'POST') throw new WebhookRefusal(405, 'webhook deliveries are POSTs');
    const delivery = checkDelivery(checks, { headers: request, body: await bodyOf(request, limit) });
    if (handled.has(delivery.id)) return NO_CONTENT;
    let done = handling.get(delivery.id);
    if (!done) {
      done = (async () => options.onDelivery(delivery, request))();
      handling.set(delivery.id, done);
      done.then(
        () => handled.add(delivery.id),
        () => undefined,
      );
      void done.finally(() => handling.delete(delivery.id)).catch(() => undefined);
    }
    await done;
    return NO_CONTENT;
  }

  return async (request) => {
    try {
      return await receive(request);
    } catch (error) {
      if (!(error instanceof WebhookRefusal)) throw error;
      options.onRefusal?.(error, request);
      return refusalResponse(error);
    }
  };
}

/** The raw body (signatures are over it), as text within `limit`. */
async function bodyOf(request: HttpRequest, limit: number): Promise<string> {
  try {
    return await request.text(limit);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw new WebhookRefusal(413, `body larger than ${limit} bytes`);
    if (error instanceof ParseError) throw new WebhookRefusal(400, 'bad-body: the body is not UTF-8 text');
    // Nobody is left to hear the answer.
    if (error instanceof RequestAbortedError) throw new WebhookRefusal(400, 'the sender went away before the body was complete');
    throw error;
  }
}

function refusalResponse(refusal: WebhookRefusal): HttpResponse {
  return {
    status: refusal.status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...(refusal.status === 405 ? { allow: 'POST' } : {}) },
    body: `${refusal.message}\n`,
  };
}
