/**
 * The A2A 0.3 gRPC service `a2a.v1.A2AService` (proto/v03/a2a.proto, the v0.3.0 specification
 * proto) as the 0.3 JSON-RPC calls it carries: each rpc with its 0.3 method (derived from the
 * generated descriptor, so names and paths cannot drift from the proto), and the request and
 * result messages, in the 0.3 proto-JSON dialect, as the JSON-RPC-dialect params and results
 * src/compat translates (both directions: server and client). The objects inside (messages,
 * tasks, push configs, the card) are converted by src/compat/protoJson03.ts; what is gRPC's own
 * is the resource names (`tasks/{id}`, `tasks/{id}/pushNotificationConfigs/{configId}`).
 */
import type { DescMessage } from '@bufbuild/protobuf';
import {
  agentCardFromProto03,
  pushConfigListFromProto03,
  pushCreateBodyFromProto03,
  pushCreateToProto03,
  sendParamsFromProto03,
  sendParamsToProto03,
  sendResultFromProto03,
  taskFromProto03,
  taskPushConfigFromProto03,
  unaryResultToProto03,
} from '../../compat/protoJson03.js';
import { isObj, type Obj } from '../../compat/read.js';
import type { V03AgentCard, V03MessageSendParams, V03Method, V03TaskPushNotificationConfig } from '../../compat/v03Types.js';
import { A2AService as A2AService03 } from '../../gen/v03/a2a_pb.js';
import { invalidField } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/types.js';
import { jsonToBinary, responseToJson } from './codec.js';

export interface Grpc03Method {
  /** The proto rpc name, e.g. TaskSubscription. */
  rpc: string;
  /** camelCase rpc name (the grpc-js implementation key). */
  key: string;
  /** `/a2a.v1.A2AService/TaskSubscription`. */
  path: string;
  /** The 0.3 JSON-RPC method the rpc carries. */
  method: V03Method;
  input: DescMessage;
  output: DescMessage;
  streaming: boolean;
}

const METHOD_OF_RPC: Readonly<Record<string, V03Method>> = {
  SendMessage: 'message/send',
  SendStreamingMessage: 'message/stream',
  GetTask: 'tasks/get',
  CancelTask: 'tasks/cancel',
  TaskSubscription: 'tasks/resubscribe',
  CreateTaskPushNotificationConfig: 'tasks/pushNotificationConfig/set',
  GetTaskPushNotificationConfig: 'tasks/pushNotificationConfig/get',
  ListTaskPushNotificationConfig: 'tasks/pushNotificationConfig/list',
  DeleteTaskPushNotificationConfig: 'tasks/pushNotificationConfig/delete',
  GetAgentCard: 'agent/getAuthenticatedExtendedCard',
};

/** Fully qualified name of the 0.3 service: a2a.v1.A2AService (1.0: lf.a2a.v1.A2AService). */
export const GRPC03_SERVICE_NAME = A2AService03.typeName;

export const GRPC03_METHODS: readonly Grpc03Method[] = A2AService03.methods.map((m) => {
  const method = METHOD_OF_RPC[m.name];
  if (method === undefined) throw new Error(`No A2A 0.3 method for the rpc ${m.name}`);
  return {
    rpc: m.name,
    key: m.localName,
    path: `/${A2AService03.typeName}/${m.name}`,
    method,
    input: m.input,
    output: m.output,
    streaming: m.methodKind === 'server_streaming',
  };
});

export const GRPC03_METHOD_BY_V03: ReadonlyMap<V03Method, Grpc03Method> = new Map(GRPC03_METHODS.map((m) => [m.method, m]));

const taskName = (id: unknown): string => `tasks/${String(id)}`;
const configName = (taskId: unknown, configId: unknown): string => `${taskName(taskId)}/pushNotificationConfigs/${String(configId ?? '')}`;

/** `tasks/{id}` or `tasks/{id}/pushNotificationConfigs/{configId}`; a missing or empty config id is absent. */
export function parseResourceName03(name: unknown, field: string): { taskId: string; configId?: string } {
  const match = typeof name === 'string' ? /^tasks\/([^/]+)(?:\/pushNotificationConfigs(?:\/([^/]*))?)?$/.exec(name) : null;
  if (!match) throw invalidField(field, 'must be tasks/{id} or tasks/{id}/pushNotificationConfigs/{configId}');
  const taskId = match[1] as string;
  return match[2] ? { taskId, configId: match[2] } : { taskId };
}

// ---- server side: the request message (proto JSON) → 0.3 JSON-RPC params ----

/** Params of a 0.3 call received as `method`'s request message (proto JSON as protobuf-es writes it). */
export function paramsFromGrpc03(method: V03Method, json: unknown): unknown {
  const request: Obj = isObj(json) ? json : {};
  switch (method) {
    case 'message/send':
    case 'message/stream':
      return sendParamsFromProto03(request);
    case 'tasks/get': {
      const { taskId } = parseResourceName03(request.name, 'name');
      return typeof request.historyLength === 'number' && request.historyLength > 0 ? { id: taskId, historyLength: request.historyLength } : { id: taskId };
    }
    case 'tasks/cancel':
    case 'tasks/resubscribe':
      return { id: parseResourceName03(request.name, 'name').taskId };
    case 'tasks/pushNotificationConfig/list':
      return { id: parseResourceName03(request.parent, 'parent').taskId };
    case 'tasks/pushNotificationConfig/set':
      return { taskId: parseResourceName03(request.parent, 'parent').taskId, pushNotificationConfig: pushCreateBodyFromProto03(request) };
    case 'tasks/pushNotificationConfig/get':
    case 'tasks/pushNotificationConfig/delete': {
      const { taskId, configId } = parseResourceName03(request.name, 'name');
      return configId === undefined ? { id: taskId } : { id: taskId, pushNotificationConfigId: configId };
    }
    case 'agent/getAuthenticatedExtendedCard':
      return undefined;
  }
}

/** A unary 0.3 result (JSON-RPC dialect) → the JSON of `method`'s response message. */
export function resultToGrpc03(method: V03Method, result: unknown): JsonObject {
  // DeleteTaskPushNotificationConfig answers google.protobuf.Empty (GRPC-05).
  return unaryResultToProto03(method, result) ?? {};
}

// ---- client side: 0.3 JSON-RPC params → the request message (proto JSON), and back ----

/** The JSON of `method`'s request message for 0.3 JSON-RPC params (what requestToV03 made). */
export function paramsToGrpc03(method: V03Method, params: unknown): JsonObject {
  const p = (isObj(params) ? params : {}) as Obj;
  switch (method) {
    case 'message/send':
    case 'message/stream':
      return sendParamsToProto03(p as unknown as V03MessageSendParams);
    case 'tasks/get':
      return typeof p.historyLength === 'number' ? { name: taskName(p.id), historyLength: p.historyLength } : { name: taskName(p.id) };
    case 'tasks/cancel':
    case 'tasks/resubscribe':
      return { name: taskName(p.id) };
    case 'tasks/pushNotificationConfig/set':
      return pushCreateToProto03(p as unknown as V03TaskPushNotificationConfig);
    case 'tasks/pushNotificationConfig/get':
    case 'tasks/pushNotificationConfig/delete':
      return { name: configName(p.id, p.pushNotificationConfigId) };
    case 'tasks/pushNotificationConfig/list':
      return { parent: taskName(p.id) };
    case 'agent/getAuthenticatedExtendedCard':
      return {};
  }
}

/** `method`'s response message (proto JSON) → the 0.3 JSON-RPC result that resultToV10 reads. */
export function resultFromGrpc03(method: V03Method, json: unknown): unknown {
  switch (method) {
    case 'message/send':
      return sendResultFromProto03(json);
    case 'tasks/get':
    case 'tasks/cancel':
      return taskFromProto03(json);
    case 'tasks/pushNotificationConfig/set':
    case 'tasks/pushNotificationConfig/get':
      return taskPushConfigFromProto03(json);
    case 'tasks/pushNotificationConfig/list':
      return pushConfigListFromProto03(json);
    case 'agent/getAuthenticatedExtendedCard':
      return agentCardFromProto03(json);
    default:
      return null;
  }
}

/**
 * The 0.3 card as a 0.3 gRPC client receives it from GetAgentCard: through the 0.3 proto, which
 * has no `iconUrl` and cannot tell a member at its default (`false`, `""`, `0`) from an absent
 * one, and back as our 0.3 gRPC client reads it. A signature served over gRPC must cover this
 * form (SIGN-09), not the JSON card it came from.
 */
export function agentCardOverGrpc03(card: V03AgentCard): V03AgentCard {
  const rpc = GRPC03_METHOD_BY_V03.get('agent/getAuthenticatedExtendedCard') as Grpc03Method;
  const bytes = jsonToBinary(rpc.output, resultToGrpc03(rpc.method, card));
  return resultFromGrpc03(rpc.method, responseToJson(rpc.output, bytes)) as V03AgentCard;
}
