/**
 * Serving A2A 0.3 clients through the one 1.0 request handler (issue 9): a 0.3 call is
 * translated with src/compat (`requestToV10`), run by the same `handler.unary` / `handler.stream`
 * as a 1.0 call, and its result translated back (`resultToV03`, `streamResponseToV03`). No
 * operation is implemented twice; the only 0.3-specific logic is what 0.3 semantics need on top
 * of 1.0 calls: push config list without paging (every page collected) and push config get
 * without a config id (the config stored under the task id, else the first one).
 */
import { V03_METHODS } from '../compat/methods.js';
import { requestToV10 } from '../compat/requests.js';
import { resultToV03, selectV03DefaultPushConfig } from '../compat/results.js';
import { streamResponseToV03 } from '../compat/events.js';
import type { V03Method, V03StreamEvent } from '../compat/v03Types.js';
import { A2AError } from '../protocol/errors.js';
import { isFinalForNow } from '../protocol/taskStates.js';
import type {
  AgentCard,
  ListTaskPushNotificationConfigsRequest,
  OperationName,
  OperationRequests,
  StreamingOperationName,
  StreamResponse,
  TaskPushNotificationConfig,
  UnaryOperationName,
} from '../protocol/types.js';
import { observed } from '../server/callObserver.js';
import type { CallContext } from '../server/requestHandler.js';
import type { StreamItem } from '../server/taskStream.js';
import { stateAfter } from '../server/taskStream.js';
import type { BindingContext } from './bindingContext.js';

/** A 0.3 call: the 0.3 JSON-RPC method and its JSON-RPC-dialect params (REST builds them too). */
export interface V03Request {
  method: V03Method;
  params: unknown;
}

/**
 * What the 0.3 calls need of a binding: the request handler, and the 0.3 forms of its cards (the
 * signed ones when the server signs its cards). JSON-RPC, REST and gRPC pass theirs.
 */
export type V03Binding = Pick<BindingContext, 'handler' | 'v03Cards'>;

/** The bindings that answer 0.3 requests on the same URL as 1.0 (advertised on the 0.3 card). */
export const V03_SERVED_BINDINGS: readonly string[] = ['JSONRPC', 'HTTP+JSON'];

/** Most pages read for one 0.3 push config list (0.3 has no paging; the store caps configs per task anyway). */
const MAX_LIST_PAGES = 1000;

/** The 1.0 operation behind a 0.3 method (for authentication and capability checks). */
export function v03Operation(method: V03Method): OperationName {
  return V03_METHODS[method].operation;
}

export function isV03Streaming(method: V03Method): boolean {
  return V03_METHODS[method].streaming;
}

/** Runs a unary 0.3 call and returns its 0.3 `result`. */
export async function unaryV03(binding: V03Binding, call: V03Request, ctx: CallContext): Promise<unknown> {
  const { operation, request } = requestToV10(call.method, call.params);
  const handler = binding.handler;
  switch (call.method) {
    case 'tasks/pushNotificationConfig/list': {
      const configs = await observed(handler, { operation: 'listTaskPushNotificationConfigs', ctx }, () => listAllPushConfigs(binding, request as ListTaskPushNotificationConfigsRequest, ctx));
      return resultToV03(call.method, { configs });
    }
    case 'tasks/pushNotificationConfig/get': {
      const get = () => getPushConfig(binding, { request: request as OperationRequests['getTaskPushNotificationConfig'], params: call.params }, ctx);
      return resultToV03(call.method, await observed(handler, { operation: 'getTaskPushNotificationConfig', ctx }, get));
    }
    case 'agent/getAuthenticatedExtendedCard':
      return await binding.v03Cards.of((await handler.unary('getExtendedAgentCard', request, ctx)) as AgentCard);
    default: {
      const result = await handler.unary(operation as UnaryOperationName, request, ctx);
      return resultToV03(call.method as Exclude<V03Method, 'message/stream' | 'tasks/resubscribe'>, result as never);
    }
  }
}

/** Starts a streaming 0.3 call; translate its items with `streamItemToV03`. */
export async function streamV03(binding: Pick<V03Binding, 'handler'>, call: V03Request, ctx: CallContext): Promise<AsyncIterable<StreamItem>> {
  const { operation, request } = requestToV10(call.method, call.params);
  return binding.handler.stream(operation as StreamingOperationName, request, ctx);
}

/**
 * One stream element as the 0.3 stream result. `final` is passed explicitly: true exactly when
 * our task stream closes after this event (readTaskStream ends after a terminal or interrupted
 * state, STREAM-04), so a 0.3 client sees `final: true` on the last status update.
 */
export function streamItemToV03(event: StreamResponse): V03StreamEvent {
  const state = stateAfter(event);
  return streamResponseToV03(event, { final: state !== undefined && isFinalForNow(state) });
}

/** 0.3 list has no paging: every page of the 1.0 list is collected. */
async function listAllPushConfigs(binding: V03Binding, request: ListTaskPushNotificationConfigsRequest, ctx: CallContext): Promise<TaskPushNotificationConfig[]> {
  const configs: TaskPushNotificationConfig[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await binding.handler.unary('listTaskPushNotificationConfigs', pageToken ? { ...request, pageToken } : request, ctx);
    configs.push(...(result.configs ?? []));
    if (!result.nextPageToken) break;
    pageToken = result.nextPageToken;
  }
  return configs;
}

/**
 * 0.3 get: with a config id, the 1.0 get. Without one (both 0.3 SDKs allow it), the config
 * stored under the task id (what a 0.3 `set` without id creates), else the first config of the
 * task; none → the 1.0 get's TaskNotFound.
 */
async function getPushConfig(
  binding: V03Binding,
  call: { request: OperationRequests['getTaskPushNotificationConfig']; params: unknown },
  ctx: CallContext,
): Promise<TaskPushNotificationConfig> {
  const params = call.params as { pushNotificationConfigId?: unknown };
  const explicit = typeof params.pushNotificationConfigId === 'string' && params.pushNotificationConfigId !== '';
  try {
    return await binding.handler.unary('getTaskPushNotificationConfig', call.request, ctx);
  } catch (error) {
    if (explicit || !A2AError.is(error) || error.reason !== 'TASK_NOT_FOUND') throw error;
    const taskId = call.request.taskId;
    const chosen = selectV03DefaultPushConfig(taskId, await listAllPushConfigs(binding, { taskId } as ListTaskPushNotificationConfigsRequest, ctx));
    if (!chosen) throw error;
    return chosen;
  }
}
