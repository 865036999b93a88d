/**
 * Request parameters between A2A 0.3 (JSON-RPC dialect) and 1.0 (digest §5.2, §5.3).
 * `requestToV10` (server side: a 0.3 client calls us) takes untrusted params and returns the 1.0
 * request, to be validated with `decodeRequest(operation, request)`. `requestToV03` (client
 * side: we call a 0.3 server) takes our 1.0 request and returns the 0.3 method and params.
 */
import { UnsupportedOperationError } from '../protocol/errors.js';
import type {
  CancelTaskRequest,
  GetTaskRequest,
  JsonObject,
  OperationName,
  OperationRequests,
  SendMessageConfiguration,
  SendMessageRequest,
} from '../protocol/types.js';
import { V03_METHODS, v03MethodFor } from './methods.js';
import { messageToV03, messageToV10 } from './objects.js';
import { pushConfigToV03, pushConfigToV10, taskPushConfigToV03, taskPushConfigToV10 } from './push.js';
import { asObj, copy } from './read.js';
import type {
  V03Method,
  V03MessageSendConfiguration,
  V03MessageSendParams,
  V03MethodParams,
  V03TaskIdParams,
  V03TaskQueryParams,
} from './v03Types.js';

// ---- 0.3 → 1.0 ----

/**
 * MessageSendParams → SendMessageRequest. `blocking` → `returnImmediately = !blocking`; an absent
 * `blocking` (blocking, in 0.3 SDKs) stays absent (1.0 default: blocking).
 */
export function sendParamsToV10(input: unknown): SendMessageRequest {
  const params = asObj(input, '');
  const out: SendMessageRequest = { message: messageToV10(params.message, 'message') };
  if (params.configuration !== undefined && params.configuration !== null) {
    out.configuration = configurationToV10(params.configuration);
  }
  if (params.metadata !== undefined) out.metadata = params.metadata as JsonObject;
  return out;
}

function configurationToV10(input: unknown): SendMessageConfiguration {
  const config = asObj(input, 'configuration');
  const out: SendMessageConfiguration = copy({}, config, ['acceptedOutputModes', 'historyLength']);
  if (config.pushNotificationConfig !== undefined && config.pushNotificationConfig !== null) {
    out.taskPushNotificationConfig = pushConfigToV10(config.pushNotificationConfig, 'configuration.pushNotificationConfig');
  }
  if (config.blocking !== undefined) out.returnImmediately = config.blocking === false;
  return out;
}

function taskIdOf(input: unknown): { params: Record<string, unknown>; id: string } {
  const params = asObj(input, '');
  return { params, id: params.id as string };
}

/** TaskQueryParams → GetTaskRequest. `metadata` has no 1.0 home and is dropped. */
export function getTaskParamsToV10(input: unknown): GetTaskRequest {
  const { params, id } = taskIdOf(input);
  return copy({ id }, params, ['historyLength']);
}

/** TaskIdParams → CancelTaskRequest (metadata kept). */
export function cancelTaskParamsToV10(input: unknown): CancelTaskRequest {
  const { params, id } = taskIdOf(input);
  return copy({ id }, params, ['metadata']);
}

/**
 * 0.3 `set` → 1.0 Create. A config without `id` gets the task id, as both official 0.3 SDKs do
 * (one default config per task, which `get` without a config id then finds); 0.3 `set` is an
 * upsert, so the handler must replace an existing config with the same id (digest D3).
 */
export function setPushConfigParamsToV10(input: unknown): OperationRequests['createTaskPushNotificationConfig'] {
  const out = taskPushConfigToV10(input);
  if ((out.id === undefined || out.id === '') && out.taskId !== undefined) out.id = out.taskId;
  return out;
}

/**
 * 0.3 get: `{id: taskId, pushNotificationConfigId?}`. Without a config id the 0.3 SDKs return the
 * config stored under the task id, else the first one: we ask for `id = taskId`; the handler
 * may fall back with `selectV03DefaultPushConfig` (results.ts) when that is not found.
 */
export function getPushConfigParamsToV10(input: unknown): OperationRequests['getTaskPushNotificationConfig'] {
  const { params, id } = taskIdOf(input);
  const configId = params.pushNotificationConfigId;
  return { taskId: id, id: configId === undefined || configId === '' ? id : (configId as string) };
}

export function listPushConfigsParamsToV10(input: unknown): OperationRequests['listTaskPushNotificationConfigs'] {
  return { taskId: taskIdOf(input).id };
}

export function deletePushConfigParamsToV10(input: unknown): OperationRequests['deleteTaskPushNotificationConfig'] {
  const { params, id } = taskIdOf(input);
  return { taskId: id, id: params.pushNotificationConfigId as string };
}

const TO_V10: { [M in V03Method]: (params: unknown) => OperationRequests[(typeof V03_METHODS)[M]['operation']] } = {
  'message/send': sendParamsToV10,
  'message/stream': sendParamsToV10,
  'tasks/get': getTaskParamsToV10,
  'tasks/cancel': cancelTaskParamsToV10,
  'tasks/resubscribe': (params) => ({ id: taskIdOf(params).id }),
  'tasks/pushNotificationConfig/set': setPushConfigParamsToV10,
  'tasks/pushNotificationConfig/get': getPushConfigParamsToV10,
  'tasks/pushNotificationConfig/list': listPushConfigsParamsToV10,
  'tasks/pushNotificationConfig/delete': deletePushConfigParamsToV10,
  'agent/getAuthenticatedExtendedCard': () => ({}),
};

export interface TranslatedRequest {
  operation: OperationName;
  /** The 1.0 request (not yet validated: pass it to `decodeRequest(operation, request)`). */
  request: OperationRequests[OperationName];
}

/** The 1.0 operation and request for a 0.3 JSON-RPC call. Params must be an object (or absent for the card). */
export function requestToV10(method: V03Method, params: unknown): TranslatedRequest {
  const operation = V03_METHODS[method].operation;
  return { operation, request: TO_V10[method](params) };
}

// ---- 1.0 → 0.3 ----

/** SendMessageRequest → MessageSendParams. Lossy: `tenant`, the inline config's `taskId`/`tenant`. */
export function sendRequestToV03(request: SendMessageRequest): V03MessageSendParams {
  const out: V03MessageSendParams = { message: messageToV03(request.message) };
  const config = request.configuration;
  if (config !== undefined) {
    const c: V03MessageSendConfiguration = copy({}, config, ['acceptedOutputModes', 'historyLength']);
    if (config.taskPushNotificationConfig !== undefined) c.pushNotificationConfig = pushConfigToV03(config.taskPushNotificationConfig);
    if (config.returnImmediately !== undefined) c.blocking = !config.returnImmediately;
    out.configuration = c;
  }
  if (request.metadata !== undefined) out.metadata = request.metadata;
  return out;
}

type ToV03 = { [K in OperationName]?: (request: OperationRequests[K]) => unknown };

const TO_V03: ToV03 = {
  sendMessage: sendRequestToV03,
  sendStreamingMessage: sendRequestToV03,
  getTask: (r): V03TaskQueryParams => copy({ id: r.id }, r, ['historyLength']),
  cancelTask: (r): V03TaskIdParams => copy({ id: r.id }, r, ['metadata']),
  subscribeToTask: (r): V03TaskIdParams => ({ id: r.id }),
  createTaskPushNotificationConfig: (r) => taskPushConfigToV03(r),
  getTaskPushNotificationConfig: (r) => ({ id: r.taskId, pushNotificationConfigId: r.id }),
  listTaskPushNotificationConfigs: (r) => ({ id: r.taskId }),
  deleteTaskPushNotificationConfig: (r) => ({ id: r.taskId, pushNotificationConfigId: r.id }),
  getExtendedAgentCard: () => undefined,
};

export interface V03Call<M extends V03Method = V03Method> {
  method: M;
  /** Absent for `agent/getAuthenticatedExtendedCard`. */
  params: V03MethodParams[M];
}

/**
 * The 0.3 JSON-RPC method and params for a 1.0 request. Throws UnsupportedOperationError for
 * ListTasks (no 0.3 JSON-RPC method). Lossy: `tenant` everywhere, list paging.
 */
export function requestToV03<K extends OperationName>(operation: K, request: OperationRequests[K]): V03Call {
  const method = v03MethodFor(operation);
  const translate = TO_V03[operation] as ((r: OperationRequests[K]) => unknown) | undefined;
  if (method === undefined || translate === undefined) {
    throw new UnsupportedOperationError(`${operation} is not available over A2A 0.3 (it has no 0.3 equivalent)`, { metadata: { operation } });
  }
  return { method, params: translate(request) } as V03Call;
}
