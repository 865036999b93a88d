/**
 * HTTP+JSON binding (§11), client side. Paths come from the server's own route table
 * (REST_ROUTES), with the interface's tenant as a `/{tenant}` prefix (TENANT-04); path-bound
 * fields leave the request, the rest goes in the JSON body (POST) or the query string
 * (GET/DELETE, REST-03/04). Errors are google.rpc.Status bodies (fromRestError).
 */
import { fromRestError, type RestErrorBody } from '../bindings/rest/errors.js';
import { REST_ROUTES, type RestRoute } from '../bindings/rest/routes.js';
import { invalidField } from '../protocol/errors.js';
import type { OperationName, OperationResponses, StreamingOperationName, UnaryOperationName } from '../protocol/types.js';
import { A2AClientError, withResponse } from './errors.js';
import { checkEvent, errorFromResponse, headersFor, isEventStream, isObject, parseJson, readJson, send, streamItems, withQuery } from './http.js';
import type { FetchLike, StreamItem, Transport, TransportCall, TransportFactory } from './transport.js';

const MEDIA_TYPE = 'application/a2a+json';

/** One route per operation; where the table has two (SubscribeToTask, A1) the spec text's POST. */
const ROUTES = new Map<OperationName, RestRoute>();
for (const route of REST_ROUTES) {
  if (!ROUTES.has(route.op) || route.method === 'POST') ROUTES.set(route.op, route);
}

function errorOf(body: unknown): Error | undefined {
  return isObject(body) && isObject(body.error) ? fromRestError(body as unknown as RestErrorBody) : undefined;
}

class RestTransport implements Transport {
  private readonly base: string;

  constructor(
    url: string,
    private readonly fetch: FetchLike,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  private request(call: TransportCall, accept: string): Promise<Response> {
    const route = ROUTES.get(call.op) as RestRoute;
    const { tenant, ...fields } = call.request as Record<string, unknown>;
    let path = route.pattern.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = fields[name];
      if (typeof value !== 'string' || value === '') throw invalidField(name, 'is required');
      delete fields[name];
      return encodeURIComponent(value);
    });
    if (typeof tenant === 'string' && tenant !== '') path = `/${encodeURIComponent(tenant)}${path}`;
    const query = new URLSearchParams();
    let body: string | undefined;
    if (route.method === 'POST') body = JSON.stringify(fields);
    else {
      for (const [name, value] of Object.entries(fields)) {
        if (value !== undefined && value !== null) query.append(name, String(value));
      }
    }
    call.query.forEach((value, name) => query.append(name, value));
    return send(this.fetch, withQuery(this.base + path, query), {
      method: route.method,
      headers: headersFor(call, body === undefined ? { accept } : { 'content-type': MEDIA_TYPE, accept }),
      ...(body === undefined ? {} : { body }),
      signal: call.signal,
    });
  }

  async unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    const res = await this.request(call, `${MEDIA_TYPE}, application/json`);
    if (!res.ok) throw await errorFromResponse(res, errorOf);
    // B10: Delete answers `{}` or 204.
    if (res.status === 204) return {} as OperationResponses[K];
    const body = await readJson(res);
    if (!isObject(body)) throw new A2AClientError('INVALID_RESPONSE', 'The agent sent a response that is not a JSON object', { status: res.status });
    return body as OperationResponses[K];
  }

  async stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    const res = await this.request(call, 'text/event-stream');
    if (!res.ok) throw await errorFromResponse(res, errorOf);
    if (!isEventStream(res)) throw new A2AClientError('INVALID_RESPONSE', 'The agent answered a streaming call without an event stream');
    return streamItems(res, (sse) => {
      const body = parseJson(sse.data, 'an event');
      // B9: a mid-stream error is one `event: error` whose data is the error body.
      const error = errorOf(body);
      if (error) throw withResponse(error, { status: res.status });
      if (sse.event === 'error') throw new A2AClientError('INVALID_RESPONSE', `The agent streamed an unreadable error: ${sse.data.slice(0, 200)}`);
      return checkEvent(body);
    });
  }
}

export const restTransport: TransportFactory = {
  binding: 'HTTP+JSON',
  create: (agentInterface, context) => new RestTransport(agentInterface.url, context.fetch),
};
