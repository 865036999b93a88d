/**
 * Unary results between A2A 0.3 and 1.0 (digest §5.2). Server side, `resultToV03` turns our 1.0
 * result into the 0.3 `result` of the method; client side, `resultToV10` reads a 0.3 server's
 * result into ours (and throws InvalidAgentResponseError when it cannot be read).
 */
import { A2AError, InvalidAgentResponseError } from '../protocol/errors.js';
import type { AgentCard, OperationResponses, TaskPushNotificationConfig } from '../protocol/types.js';
import { agentCardToV03, agentCardToV10, type CardToV03Options } from './card.js';
import { sendMessageResultToV03, sendMessageResultToV10 } from './events.js';
import { taskToV03, taskToV10 } from './objects.js';
import { taskPushConfigToV03, taskPushConfigToV10 } from './push.js';
import { asArray, join } from './read.js';
import type { V03MethodResults } from './v03Types.js';

/** The unary 0.3 methods (the streaming ones answer with V03StreamEvent, see events.ts). */
export type V03UnaryMethod = keyof V03MethodResults;

/** The 1.0 result of the operation behind each unary 0.3 method (see V03_METHODS). */
export interface V10ResultOfV03Method {
  'message/send': OperationResponses['sendMessage'];
  'tasks/get': OperationResponses['getTask'];
  'tasks/cancel': OperationResponses['cancelTask'];
  'tasks/pushNotificationConfig/set': OperationResponses['createTaskPushNotificationConfig'];
  'tasks/pushNotificationConfig/get': OperationResponses['getTaskPushNotificationConfig'];
  'tasks/pushNotificationConfig/list': OperationResponses['listTaskPushNotificationConfigs'];
  'tasks/pushNotificationConfig/delete': OperationResponses['deleteTaskPushNotificationConfig'];
  'agent/getAuthenticatedExtendedCard': OperationResponses['getExtendedAgentCard'];
}
type V10Result<M extends V03UnaryMethod> = V10ResultOfV03Method[M];

export interface ResultToV03Options {
  /** For `agent/getAuthenticatedExtendedCard`. */
  card?: CardToV03Options;
}

const TO_V03: { [M in V03UnaryMethod]: (result: V10Result<M>, options: ResultToV03Options) => V03MethodResults[M] } = {
  'message/send': (r) => sendMessageResultToV03(r),
  'tasks/get': (r) => taskToV03(r),
  'tasks/cancel': (r) => taskToV03(r),
  'tasks/pushNotificationConfig/set': (r) => taskPushConfigToV03(r),
  'tasks/pushNotificationConfig/get': (r) => taskPushConfigToV03(r),
  // A bare array: the handler must collect every page first (0.3 has no paging).
  'tasks/pushNotificationConfig/list': (r) => (r.configs ?? []).map(taskPushConfigToV03),
  'tasks/pushNotificationConfig/delete': () => null,
  'agent/getAuthenticatedExtendedCard': (r, options) => agentCardToV03(r, options.card),
};

export function resultToV03<M extends V03UnaryMethod>(method: M, result: V10Result<M>, options: ResultToV03Options = {}): V03MethodResults[M] {
  return TO_V03[method](result, options);
}

const TO_V10: { [M in V03UnaryMethod]: (result: unknown) => V10Result<M> } = {
  'message/send': (r) => sendMessageResultToV10(r),
  'tasks/get': (r) => taskToV10(r, 'result'),
  'tasks/cancel': (r) => taskToV10(r, 'result'),
  'tasks/pushNotificationConfig/set': (r) => taskPushConfigToV10(r, 'result'),
  'tasks/pushNotificationConfig/get': (r) => taskPushConfigToV10(r, 'result'),
  'tasks/pushNotificationConfig/list': (r) => ({
    configs: asArray(r ?? [], 'result').map((c, i) => taskPushConfigToV10(c, join('result', i))),
  }),
  'tasks/pushNotificationConfig/delete': () => ({}),
  'agent/getAuthenticatedExtendedCard': (r): AgentCard => agentCardToV10(r),
};

/** Client side: a 0.3 result as ours. Untranslatable results → InvalidAgentResponseError. */
export function resultToV10<M extends V03UnaryMethod>(method: M, result: unknown): V10Result<M> {
  try {
    return TO_V10[method](result);
  } catch (error) {
    if (!A2AError.is(error)) throw error;
    throw new InvalidAgentResponseError(`Invalid A2A 0.3 ${method} result: ${error.message}`, {
      fieldViolations: error.fieldViolations,
      cause: error,
    });
  }
}

/**
 * 0.3 `tasks/pushNotificationConfig/get` without a config id (both 0.3 SDKs): the config whose
 * id is the task id, else the first one; undefined when the task has none.
 */
export function selectV03DefaultPushConfig(taskId: string, configs: readonly TaskPushNotificationConfig[]): TaskPushNotificationConfig | undefined {
  return configs.find((c) => c.id === taskId) ?? configs[0];
}
