/**
 * Writing the A2A 0.3 proto-JSON dialect (protoJson03.ts): JSON-RPC-dialect objects → the JSON
 * of the 0.3 `a2a.v1` proto messages. Server side, the responses (both SDK clients parse
 * these); client side, the requests sent to a 0.3 REST or gRPC agent. Pure functions.
 */
import type { JsonObject } from '../protocol/types.js';
import type { Obj } from './read.js';
import type {
  V03AgentCard,
  V03Artifact,
  V03Message,
  V03MessageSendParams,
  V03Method,
  V03Part,
  V03PushNotificationConfig,
  V03StreamEvent,
  V03Task,
  V03TaskPushNotificationConfig,
  V03TaskState,
  V03TaskStatus,
} from './v03Types.js';

// ---- JSON-RPC dialect → proto JSON (responses) ----

/** A 0.3 task state → its proto enum name (`canceled` is `TASK_STATE_CANCELLED`). */
export const STATE_TO_PROTO: Record<V03TaskState, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELLED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

function partToProto(part: V03Part): JsonObject {
  const out: JsonObject = {};
  if (part.kind === 'text') out.text = part.text;
  else if (part.kind === 'file') {
    const file: JsonObject = {};
    if ('uri' in part.file) file.fileWithUri = part.file.uri;
    else file.fileWithBytes = part.file.bytes;
    if (part.file.mimeType !== undefined) file.mimeType = part.file.mimeType;
    out.file = file;
  } else out.data = { data: part.data };
  return out;
}

export function messageToProto03(message: V03Message): JsonObject {
  const out: JsonObject = {
    messageId: message.messageId,
    role: message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    content: message.parts.map(partToProto),
  };
  if (message.contextId !== undefined) out.contextId = message.contextId;
  if (message.taskId !== undefined) out.taskId = message.taskId;
  if (message.metadata !== undefined) out.metadata = message.metadata;
  if (message.extensions !== undefined) out.extensions = message.extensions;
  return out;
}

function statusToProto(status: V03TaskStatus): JsonObject {
  const out: JsonObject = { state: STATE_TO_PROTO[status.state] ?? 'TASK_STATE_UNSPECIFIED' };
  if (status.message !== undefined) out.message = messageToProto03(status.message);
  if (status.timestamp !== undefined) out.timestamp = status.timestamp;
  return out;
}

function artifactToProto(artifact: V03Artifact): JsonObject {
  const out: JsonObject = { artifactId: artifact.artifactId, parts: artifact.parts.map(partToProto) };
  if (artifact.name !== undefined) out.name = artifact.name;
  if (artifact.description !== undefined) out.description = artifact.description;
  if (artifact.metadata !== undefined) out.metadata = artifact.metadata;
  if (artifact.extensions !== undefined) out.extensions = artifact.extensions;
  return out;
}

export function taskToProto03(task: V03Task): JsonObject {
  const out: JsonObject = { id: task.id, contextId: task.contextId, status: statusToProto(task.status) };
  if (task.artifacts !== undefined) out.artifacts = task.artifacts.map(artifactToProto);
  if (task.history !== undefined) out.history = task.history.map(messageToProto03);
  if (task.metadata !== undefined) out.metadata = task.metadata;
  return out;
}

/** A `message:send` result → SendMessageResponse JSON (`{task}` or `{message}`). */
export function sendResultToProto03(result: V03Task | V03Message): JsonObject {
  return result.kind === 'task' ? { task: taskToProto03(result) } : { message: messageToProto03(result) };
}

/** One stream event → StreamResponse JSON (statusUpdate keeps `final`). */
export function streamEventToProto03(event: V03StreamEvent): JsonObject {
  switch (event.kind) {
    case 'task':
    case 'message':
      return sendResultToProto03(event);
    case 'status-update': {
      const update: JsonObject = { taskId: event.taskId, contextId: event.contextId, status: statusToProto(event.status), final: event.final };
      if (event.metadata !== undefined) update.metadata = event.metadata;
      return { statusUpdate: update };
    }
    case 'artifact-update': {
      const update: JsonObject = { taskId: event.taskId, contextId: event.contextId, artifact: artifactToProto(event.artifact) };
      if (event.append !== undefined) update.append = event.append;
      if (event.lastChunk !== undefined) update.lastChunk = event.lastChunk;
      if (event.metadata !== undefined) update.metadata = event.metadata;
      return { artifactUpdate: update };
    }
  }
}

function pushConfigToProto(config: V03PushNotificationConfig): JsonObject {
  const out: JsonObject = { url: config.url };
  if (config.id !== undefined) out.id = config.id;
  if (config.token !== undefined) out.token = config.token;
  if (config.authentication !== undefined) {
    const auth: JsonObject = { schemes: config.authentication.schemes };
    if (config.authentication.credentials !== undefined) auth.credentials = config.authentication.credentials;
    out.authentication = auth;
  }
  return out;
}

/** TaskPushNotificationConfig JSON: `name = tasks/{taskId}/pushNotificationConfigs/{id}`. */
export function taskPushConfigToProto03(config: V03TaskPushNotificationConfig): JsonObject {
  return {
    name: `tasks/${config.taskId}/pushNotificationConfigs/${config.pushNotificationConfig.id ?? ''}`,
    pushNotificationConfig: pushConfigToProto(config.pushNotificationConfig),
  };
}

/** The 0.3 proto AgentCard JSON: security requirements as `{schemes: {name: {list}}}`, schemes as the proto oneof. */
export function agentCardToProto03(card: V03AgentCard): JsonObject {
  const { security, securitySchemes, skills, ...rest } = card;
  const out = { ...rest } as unknown as JsonObject;
  out.skills = skills.map((s) => {
    const { security: skillSecurity, ...others } = s;
    const skill = { ...others } as unknown as JsonObject;
    if (skillSecurity !== undefined) skill.security = skillSecurity.map(requirementToProto);
    return skill;
  });
  if (security !== undefined) out.security = security.map(requirementToProto);
  if (securitySchemes !== undefined) {
    const schemes: JsonObject = {};
    for (const [name, scheme] of Object.entries(securitySchemes)) {
      const { type, ...fields } = scheme as unknown as Obj;
      if (type === 'apiKey') {
        const { in: location, ...more } = fields;
        schemes[name] = { apiKeySecurityScheme: { ...more, location } } as JsonObject;
      } else if (type === 'http') schemes[name] = { httpAuthSecurityScheme: fields } as JsonObject;
      else if (type === 'oauth2') schemes[name] = { oauth2SecurityScheme: fields } as JsonObject;
      else if (type === 'openIdConnect') schemes[name] = { openIdConnectSecurityScheme: fields } as JsonObject;
      else schemes[name] = { mtlsSecurityScheme: fields } as JsonObject;
    }
    out.securitySchemes = schemes;
  }
  return out;
}

function requirementToProto(requirement: Record<string, string[]>): JsonObject {
  const schemes: JsonObject = {};
  for (const [name, list] of Object.entries(requirement)) if (name !== '__proto__') schemes[name] = { list };
  return { schemes };
}

/**
 * A unary 0.3 result (JSON-RPC dialect) → the JSON of its proto response message, as 0.3 REST
 * and 0.3 gRPC answer it; undefined for the methods whose answer is no message (delete).
 */
export function unaryResultToProto03(method: V03Method, result: unknown): JsonObject | undefined {
  switch (method) {
    case 'message/send':
      return sendResultToProto03(result as V03Task | V03Message);
    case 'tasks/get':
    case 'tasks/cancel':
      return taskToProto03(result as V03Task);
    case 'tasks/pushNotificationConfig/set':
    case 'tasks/pushNotificationConfig/get':
      return taskPushConfigToProto03(result as V03TaskPushNotificationConfig);
    case 'tasks/pushNotificationConfig/list':
      // 0.3 has no paging: every config is in the one answer.
      return { configs: (result as V03TaskPushNotificationConfig[]).map(taskPushConfigToProto03), nextPageToken: '' };
    case 'agent/getAuthenticatedExtendedCard':
      return agentCardToProto03(result as V03AgentCard);
    default:
      return undefined;
  }
}

// ---- Client side (calling a 0.3 REST agent): JSON-RPC dialect → proto JSON (requests) ----

/**
 * MessageSendParams → the 0.3 REST `SendMessageRequest` JSON (`message`, `configuration.
 * pushNotification`). A configuration without `blocking` says `blocking: true`: 0.3 SDK
 * servers read a missing `blocking` in a present configuration as the proto default, false.
 */
export function sendParamsToProto03(params: V03MessageSendParams): JsonObject {
  const out: JsonObject = { message: messageToProto03(params.message) };
  const config = params.configuration;
  if (config !== undefined) {
    const c: JsonObject = { blocking: config.blocking ?? true };
    if (config.acceptedOutputModes !== undefined) c.acceptedOutputModes = config.acceptedOutputModes;
    if (config.historyLength !== undefined) c.historyLength = config.historyLength;
    if (config.pushNotificationConfig !== undefined) c.pushNotification = pushConfigToProto(config.pushNotificationConfig);
    out.configuration = c;
  }
  if (params.metadata !== undefined) out.metadata = params.metadata;
  return out;
}

/**
 * `{taskId, pushNotificationConfig}` → the 0.3 `CreateTaskPushNotificationConfigRequest` JSON
 * `{parent, configId, config: {name, pushNotificationConfig}}`: the body the 0.3 JS SDK's REST
 * server reads (`pushCreateBodyFromProto03` reads it too).
 */
export function pushCreateToProto03(config: V03TaskPushNotificationConfig): JsonObject {
  const out: JsonObject = { parent: `tasks/${config.taskId}`, config: taskPushConfigToProto03(config) };
  if (config.pushNotificationConfig.id !== undefined) out.configId = config.pushNotificationConfig.id;
  return out;
}
