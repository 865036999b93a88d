/**
 * HTTP+JSON binding (§11), client side. Paths come from the server's own route table
 * (REST_ROUTES), with the interface's tenant as a `/{tenant}` prefix (TENANT-04); path-bound
 * fields leave the request, the rest goes in the JSON body (POST) or the query string
 * (GET/DELETE, REST-03/04). Errors are google.rpc.Status bodies (fromRestError).
 *
 * The plumbing (`sendRest`, `restBody`, `openEventStream`, `restEventBody` in http.ts) is shared
 * with the A2A 0.3 REST transport (rest03Transport.ts), which differs in paths, payloads and
 * error bodies only.
 */
import { fromRestError, type RestErrorBody } from '../bindings/rest/errorBody.js';
import { REST_ROUTES, type RestRoute } from '../bindings/rest/routes.js';
import type { OperationName, OperationResponses, StreamingOperationName, UnaryOperationName } from '../protocol/types.js';
import { A2AClientError } from './errors.js';
import { checkEvent } from './responses.js';
import { A2A_JSON, isObject, openEventStream, pathSegment, restBody, restEventBody, sendRest, streamItems, type RestRequest } from './http.js';
import type { StreamItem, Transport, TransportCall, TransportContext, TransportFactory } from './transport.js';
import { withV03 } from './dualVersion.js';

const MEDIA_TYPE = A2A_JSON;

/** One route per operation; where the table has two (SubscribeToTask, A1) the spec text's POST. */
const ROUTES = new Map<OperationName, RestRoute>();
for (const route of REST_ROUTES) {
  if (!ROUTES.has(route.op) || route.method === 'POST') ROUTES.set(route.op, route);
}

function errorOf(body: unknown): Error | undefined {
  return isObject(body) && isObject(body.error) ? fromRestError(body as unknown as RestErrorBody) : undefined;
}

/** The request of a call: path from the route (tenant prefix), the other fields in the body or query. */
function requestOf(call: TransportCall, accept: string): RestRequest {
  const route = ROUTES.get(call.op) as RestRoute;
  const { tenant, ...fields } = call.request as Record<string, unknown>;
  let path = route.pattern.replace(/\{(\w+)\}/g, (_, name: string) => {
    const segment = pathSegment(fields[name], name);
    delete fields[name];
    return segment;
  });
  if (typeof tenant === 'string' && tenant !== '') path = `/${encodeURIComponent(tenant)}${path}`;
  if (route.method === 'POST') return { method: route.method, path, body: fields, accept };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && value !== null) query.append(name, String(value));
  }
  return { method: route.method, path, query, accept };
}

class RestTransport implements Transport {
  constructor(
    private readonly base: string,
    private readonly context: TransportContext,
  ) {}

  async unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    const res = await sendRest(this.context.fetch, this.base, { call, request: requestOf(call, `${MEDIA_TYPE}, application/json`) });
    const body = await restBody(res, errorOf, this.context);
    // B10: Delete answers `{}` or 204.
    if (body === undefined) return {} as OperationResponses[K];
    if (!isObject(body)) throw new A2AClientError('INVALID_RESPONSE', 'The agent sent a response that is not a JSON object', { status: res.status });
    return body as OperationResponses[K];
  }

  async stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    const res = await sendRest(this.context.fetch, this.base, { call, request: requestOf(call, 'text/event-stream') });
    await openEventStream(res, { errorOf, limits: this.context });
    return streamItems(res, (sse) => checkEvent(restEventBody(sse, { errorOf, status: res.status })), this.context);
  }
}

/** HTTP+JSON at A2A 1.0, and at 0.3 (rest03Transport.ts, loaded on first use; see dualVersion.ts). */
export const restTransport: TransportFactory = withV03({
  binding: 'HTTP+JSON',
  create: (agentInterface, context) => new RestTransport(agentInterface.url, context),
  load: async () => (await import('./rest03Transport.js')).rest03,
});
