/**
 * HTTP+JSON client transport for A2A 0.3 agents. The 0.3 routes (`V03_REST_ROUTES`:
 * `/v1/message:send`, `/v1/tasks/{id}:subscribe`, `/v1/card`, …) below the interface URL, in
 * the 0.3 proto-JSON dialect the official 0.3 SDKs speak over REST (`ROLE_USER`, `content`,
 * `TASK_STATE_CANCELLED`, `{task|message|statusUpdate|artifactUpdate}`; protoJson03.ts).
 * A call is translated as over 0.3 JSON-RPC (v03Translate.ts: `requestToV03`, then the proto
 * dialect; the answer back to the JSON-RPC dialect, then `resultToV10`), so both 0.3
 * transports give the same results, events and errors. Error bodies are the 0.3 JS SDK's
 * `{code, message, data}` (`errorFromV03`). No A2A-Version header (VER-05).
 *
 * The HTTP and SSE plumbing is the 1.0 REST transport's (http.ts). Loaded only when a
 * 0.3 agent is met (dualVersion.ts).
 */
import { errorFromV03 } from '../compat/errors.js';
import { V03_REST_ROUTES, type V03RestRoute } from '../compat/methods.js';
import {
  agentCardFromProto03,
  pushConfigListFromProto03,
  pushCreateToProto03,
  sendParamsToProto03,
  sendResultFromProto03,
  streamEventFromProto03,
  taskFromProto03,
  taskPushConfigFromProto03,
} from '../compat/protoJson03.js';
import type { V03Call } from '../compat/requests.js';
import type { V03UnaryMethod } from '../compat/results.js';
import type { V03Method, V03MessageSendParams, V03TaskPushNotificationConfig } from '../compat/v03Types.js';
import type { OperationResponses, StreamingOperationName, UnaryOperationName } from '../protocol/types.js';
import { isObject, openEventStream, pathSegment, restBody, restEventBody, sendRest, type RestRequest } from './http.js';
import type { StreamItem, Transport, TransportCall, TransportContext } from './transport.js';
import { v03CallOf, v03Result, v03StreamItems } from './v03Translate.js';

/** One route per 0.3 method: the first listed (`GET …:subscribe`, as in the 0.3 proto). */
const ROUTES = new Map<V03Method, V03RestRoute>();
for (const route of V03_REST_ROUTES) if (!ROUTES.has(route.method)) ROUTES.set(route.method, route);

/** A 0.3 REST error body: the JSON-RPC error object `{code, message, data?}` (0.3 JS SDK). */
function errorOf(body: unknown): Error | undefined {
  return isObject(body) && typeof body.code === 'number' ? errorFromV03(body) : undefined;
}

type Params = Record<string, unknown>;

/** The REST request of a 0.3 call: path parameters, the `historyLength` query, the proto-JSON body. */
function requestOf({ method, params }: V03Call, accept: string): RestRequest {
  const route = ROUTES.get(method) as V03RestRoute;
  const p = (params ?? {}) as Params;
  const taskId = route.params === 'push-create' ? p.taskId : p.id;
  let path = route.pattern.replace('{id}', () => pathSegment(taskId, 'id'));
  if (route.params === 'push-config-id') path = path.replace('{configId}', () => pathSegment(p.pushNotificationConfigId, 'pushNotificationConfigId'));
  const request: RestRequest = { method: route.httpMethod, path, accept, contentType: 'application/json' };
  if (route.params === 'body') request.body = sendParamsToProto03(params as V03MessageSendParams);
  if (route.params === 'push-create') request.body = pushCreateToProto03(params as V03TaskPushNotificationConfig);
  if (route.params === 'task-query' && p.historyLength !== undefined) request.query = new URLSearchParams({ historyLength: String(p.historyLength) });
  return request;
}

/** Proto-JSON response → the JSON-RPC dialect result of the method (the request's params fill in the task id). */
const FROM_PROTO: { [M in V03UnaryMethod]: (body: unknown, params: Params) => unknown } = {
  'message/send': sendResultFromProto03,
  'tasks/get': (body) => taskFromProto03(body),
  'tasks/cancel': (body) => taskFromProto03(body),
  'tasks/pushNotificationConfig/set': (body, p) => taskPushConfigFromProto03(body, p.taskId as string),
  'tasks/pushNotificationConfig/get': (body, p) => taskPushConfigFromProto03(body, p.id as string),
  'tasks/pushNotificationConfig/list': (body, p) => pushConfigListFromProto03(body, p.id as string),
  'tasks/pushNotificationConfig/delete': () => null,
  'agent/getAuthenticatedExtendedCard': agentCardFromProto03,
};

export class Rest03Transport implements Transport {
  constructor(
    private readonly base: string,
    private readonly context: TransportContext,
  ) {}

  async unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    const v03 = v03CallOf(call);
    const res = await sendRest(this.context.fetch, this.base, { call, request: requestOf(v03, 'application/json') });
    const body = await restBody(res, errorOf, this.context);
    const method = v03.method as V03UnaryMethod;
    return v03Result<K>(method, FROM_PROTO[method](body, (v03.params ?? {}) as Params));
  }

  async stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    const res = await sendRest(this.context.fetch, this.base, { call, request: requestOf(v03CallOf(call), 'text/event-stream') });
    await openEventStream(res, { errorOf, limits: this.context });
    return v03StreamItems(res, { decode: (sse) => streamEventFromProto03(restEventBody(sse, { errorOf, status: res.status })), limits: this.context });
  }
}

/** The 0.3 REST transport for an interface URL. */
export function rest03(url: string, context: TransportContext): Transport {
  return new Rest03Transport(url, context);
}
