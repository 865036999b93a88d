/**
 * Reading the A2A 0.3 proto-JSON dialect (protoJson03.ts): the JSON of the 0.3 `a2a.v1` proto
 * messages, or already the JSON-RPC dialect, → JSON-RPC-dialect objects. Server side, the
 * requests; client side, the responses of a 0.3 REST or gRPC agent. Pure functions; values are
 * checked by the JSON-RPC-dialect translators and the 1.0 decoder afterwards. Proto defaults
 * (`""`) read as absent.
 */
import { invalidField } from '../protocol/errors.js';
import { isObj, type Obj } from './read.js';
import { STATE_TO_PROTO } from './protoJson03Write.js';
import type { V03TaskState } from './v03Types.js';

// ---- proto JSON → JSON-RPC dialect (requests) ----

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function setIf(out: Obj, key: string, value: unknown): void {
  if (value !== undefined) out[key] = value;
}

const ROLE_FROM_PROTO: Record<string, string> = { ROLE_USER: 'user', ROLE_AGENT: 'agent', '1': 'user', '2': 'agent' };

/** True when a message object is already in the JSON-RPC dialect. */
function isJsonRpcMessage(message: Obj): boolean {
  return 'kind' in message || 'parts' in message;
}

function partFromProto(part: unknown, field: string): unknown {
  if (!isObj(part)) return part;
  if ('kind' in part) return part;
  const out: Obj = {};
  if (typeof part.text === 'string') {
    out.kind = 'text';
    out.text = part.text;
  } else if (isObj(part.file)) {
    const file: Obj = {};
    setIf(file, 'uri', str(part.file.fileWithUri ?? part.file.file_with_uri));
    setIf(file, 'bytes', str(part.file.fileWithBytes ?? part.file.file_with_bytes));
    setIf(file, 'mimeType', str(part.file.mimeType ?? part.file.mime_type));
    setIf(file, 'name', str(part.file.name));
    out.kind = 'file';
    out.file = file;
  } else if (isObj(part.data)) {
    out.kind = 'data';
    out.data = isObj(part.data.data) ? part.data.data : {};
  } else {
    throw invalidField(field, 'must have text, file or data');
  }
  if (part.metadata !== undefined) out.metadata = part.metadata;
  return out;
}

/** A 0.3 message in either dialect → the JSON-RPC dialect. */
export function messageFromProto03(input: unknown, field = 'message'): unknown {
  if (!isObj(input) || isJsonRpcMessage(input)) return input;
  const content = Array.isArray(input.content) ? input.content : [];
  const out: Obj = {
    kind: 'message',
    messageId: input.messageId ?? input.message_id,
    role: typeof input.role === 'string' || typeof input.role === 'number' ? (ROLE_FROM_PROTO[String(input.role)] ?? input.role) : input.role,
    parts: content.map((p, i) => partFromProto(p, `${field}.content[${i}]`)),
  };
  setIf(out, 'contextId', str(input.contextId ?? input.context_id));
  setIf(out, 'taskId', str(input.taskId ?? input.task_id));
  setIf(out, 'metadata', input.metadata ?? undefined);
  if (Array.isArray(input.extensions) && input.extensions.length > 0) out.extensions = input.extensions;
  const refs = input.referenceTaskIds ?? input.reference_task_ids;
  if (Array.isArray(refs) && refs.length > 0) out.referenceTaskIds = refs;
  return out;
}

/** A 0.3 PushNotificationConfig in either dialect (proto defaults `""` dropped). */
export function pushConfigFromProto03(input: unknown): unknown {
  if (!isObj(input)) return input;
  const out: Obj = {};
  setIf(out, 'id', str(input.id));
  out.url = input.url;
  setIf(out, 'token', str(input.token));
  if (isObj(input.authentication)) {
    const auth: Obj = { schemes: Array.isArray(input.authentication.schemes) ? input.authentication.schemes : [] };
    setIf(auth, 'credentials', str(input.authentication.credentials));
    out.authentication = auth;
  }
  return out;
}

/**
 * A 0.3 REST `message:send` / `message:stream` body in either dialect → MessageSendParams.
 * Proto dialect: the message may come as `message` or `request`; a configuration without
 * `blocking` means `blocking: false` (the proto default, as the 0.3 SDK servers read it); no
 * configuration at all stays absent (blocking).
 */
export function sendParamsFromProto03(input: unknown): unknown {
  if (!isObj(input)) return input;
  const message = input.message ?? input.request;
  if (isObj(message) && isJsonRpcMessage(message)) return { ...input, message };
  const out: Obj = { message: messageFromProto03(message) };
  const config = input.configuration;
  if (isObj(config)) {
    const c: Obj = {};
    if (Array.isArray(config.acceptedOutputModes ?? config.accepted_output_modes)) c.acceptedOutputModes = config.acceptedOutputModes ?? config.accepted_output_modes;
    const push = config.pushNotification ?? config.push_notification ?? config.pushNotificationConfig;
    if (isObj(push)) c.pushNotificationConfig = pushConfigFromProto03(push);
    const historyLength = config.historyLength ?? config.history_length;
    if (historyLength !== undefined && historyLength !== 0) c.historyLength = historyLength;
    c.blocking = config.blocking === true;
    out.configuration = c;
  }
  setIf(out, 'metadata', input.metadata ?? undefined);
  return out;
}

/**
 * A 0.3 REST push config create body → the config: `{pushNotificationConfig}` (the 0.3 JS SDK
 * sends TaskPushNotificationConfig JSON), `{config: {pushNotificationConfig}, configId}` (the
 * proto's CreateTaskPushNotificationConfigRequest), or the bare config.
 */
export function pushCreateBodyFromProto03(input: unknown): unknown {
  if (!isObj(input)) return input;
  const wrapped = isObj(input.config) ? input.config : input;
  const config = isObj(wrapped.pushNotificationConfig) ? wrapped.pushNotificationConfig : isObj(wrapped.push_notification_config) ? wrapped.push_notification_config : wrapped;
  const out = pushConfigFromProto03(config) as Obj;
  const configId = str(input.configId ?? input.config_id);
  if (out.id === undefined && configId !== undefined) out.id = configId;
  return out;
}

// ---- Client side: proto JSON → JSON-RPC dialect (responses) ----

const STATE_FROM_PROTO: Record<string, V03TaskState> = {
  ...Object.fromEntries(Object.entries(STATE_TO_PROTO).map(([state, proto]) => [proto, state as V03TaskState])),
  TASK_STATE_CANCELED: 'canceled',
  ...Object.fromEntries((['unknown', 'submitted', 'working', 'completed', 'failed', 'canceled', 'input-required', 'rejected', 'auth-required'] as const).map((s, i) => [String(i), s])),
};

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A proto TaskStatus (`update` or `message`; a missing state is the proto default, unspecified). */
function statusFromProto(input: unknown, field: string): unknown {
  if (!isObj(input)) return input;
  const out: Obj = { state: input.state === undefined ? 'unknown' : (STATE_FROM_PROTO[String(input.state)] ?? input.state) };
  const message = input.message ?? input.update;
  if (message !== undefined && message !== null) out.message = messageFromProto03(message, `${field}.message`);
  setIf(out, 'timestamp', input.timestamp ?? undefined);
  return out;
}

function artifactFromProto(input: unknown, field: string): unknown {
  if (!isObj(input)) return input;
  const out: Obj = { artifactId: input.artifactId ?? input.artifact_id, parts: list(input.parts).map((p, i) => partFromProto(p, `${field}.parts[${i}]`)) };
  setIf(out, 'name', str(input.name));
  setIf(out, 'description', str(input.description));
  setIf(out, 'metadata', input.metadata ?? undefined);
  if (list(input.extensions).length > 0) out.extensions = input.extensions;
  return out;
}

/** A proto Task → the JSON-RPC dialect Task (one with `kind` is passed through). */
export function taskFromProto03(input: unknown, field = 'task'): unknown {
  if (!isObj(input) || 'kind' in input) return input;
  const out: Obj = { kind: 'task', id: input.id, contextId: input.contextId ?? input.context_id ?? '', status: statusFromProto(input.status ?? {}, `${field}.status`) };
  if (input.artifacts !== undefined) out.artifacts = list(input.artifacts).map((a, i) => artifactFromProto(a, `${field}.artifacts[${i}]`));
  if (input.history !== undefined) out.history = list(input.history).map((m, i) => messageFromProto03(m, `${field}.history[${i}]`));
  setIf(out, 'metadata', input.metadata ?? undefined);
  return out;
}

/** A proto `SendMessageResponse` (`{task}` / `{message}`, also `msg`) → the bare Task or Message. */
export function sendResultFromProto03(input: unknown): unknown {
  if (!isObj(input) || 'kind' in input) return input;
  if (isObj(input.task)) return taskFromProto03(input.task);
  const message = input.message ?? input.msg;
  return isObj(message) ? messageFromProto03(message) : input;
}

/** A proto `StreamResponse` → the 0.3 stream event with its `kind` (`final` kept, default false). */
export function streamEventFromProto03(input: unknown): unknown {
  if (!isObj(input) || 'kind' in input) return input;
  const status = input.statusUpdate ?? input.status_update;
  const artifact = input.artifactUpdate ?? input.artifact_update;
  const update = isObj(status) ? status : isObj(artifact) ? artifact : undefined;
  if (update === undefined) return sendResultFromProto03(input);
  const out: Obj = { kind: update === status ? 'status-update' : 'artifact-update', taskId: update.taskId ?? update.task_id, contextId: update.contextId ?? update.context_id ?? '' };
  if (update === status) {
    out.status = statusFromProto(update.status ?? {}, 'statusUpdate.status');
    out.final = update.final === true;
  } else {
    out.artifact = artifactFromProto(update.artifact, 'artifactUpdate.artifact');
    if (update.append !== undefined) out.append = update.append;
    const lastChunk = update.lastChunk ?? update.last_chunk;
    if (lastChunk !== undefined) out.lastChunk = lastChunk;
  }
  setIf(out, 'metadata', update.metadata ?? undefined);
  return out;
}

const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs(?:\/([^/]+))?$/;

/**
 * A proto TaskPushNotificationConfig `{name, pushNotificationConfig}` → `{taskId,
 * pushNotificationConfig}`: the task (and a missing config id) from `name`, else `taskId`.
 */
export function taskPushConfigFromProto03(input: unknown, taskId?: string): unknown {
  if (!isObj(input) || 'taskId' in input) return input;
  const name = CONFIG_NAME.exec(typeof input.name === 'string' ? input.name : '');
  const config = pushConfigFromProto03(input.pushNotificationConfig ?? input.push_notification_config);
  if (isObj(config) && config.id === undefined && name?.[2] !== undefined) config.id = name[2];
  return { taskId: name?.[1] ?? taskId, pushNotificationConfig: config };
}

/** A proto `ListTaskPushNotificationConfigResponse` `{configs}` (or a bare array) → the 0.3 list result. */
export function pushConfigListFromProto03(input: unknown, taskId?: string): unknown {
  const configs = isObj(input) ? list(input.configs) : input;
  return Array.isArray(configs) ? configs.map((c) => taskPushConfigFromProto03(c, taskId)) : configs;
}

const SCHEME_FROM_PROTO: Record<string, string> = {
  apiKeySecurityScheme: 'apiKey',
  httpAuthSecurityScheme: 'http',
  oauth2SecurityScheme: 'oauth2',
  openIdConnectSecurityScheme: 'openIdConnect',
  mtlsSecurityScheme: 'mutualTLS',
};

function requirementFromProto(input: unknown): unknown {
  if (!isObj(input) || !isObj(input.schemes)) return input;
  const out: Obj = {};
  for (const [name, scopes] of Object.entries(input.schemes)) if (name !== '__proto__') out[name] = isObj(scopes) ? list(scopes.list) : scopes;
  return out;
}

function schemeFromProto(input: unknown): unknown {
  if (!isObj(input) || 'type' in input) return input;
  const [key, fields] = Object.entries(input).find(([k]) => k in SCHEME_FROM_PROTO) ?? [];
  if (key === undefined || !isObj(fields)) return input;
  const { location, ...rest } = fields;
  return key === 'apiKeySecurityScheme' ? { type: 'apiKey', ...rest, in: location } : { type: SCHEME_FROM_PROTO[key], ...fields };
}

/** The 0.3 proto AgentCard JSON (`GET /v1/card`) → the 0.3 JSON card (inverse of `agentCardToProto03`). */
export function agentCardFromProto03(input: unknown): unknown {
  if (!isObj(input)) return input;
  const out: Obj = { ...input };
  if (Array.isArray(input.security)) out.security = input.security.map(requirementFromProto);
  if (Array.isArray(input.skills)) {
    out.skills = input.skills.map((s: unknown) => (isObj(s) && Array.isArray(s.security) ? { ...s, security: s.security.map(requirementFromProto) } : s));
  }
  if (isObj(input.securitySchemes)) {
    const schemes: Obj = {};
    for (const [name, scheme] of Object.entries(input.securitySchemes)) if (name !== '__proto__') schemes[name] = schemeFromProto(scheme);
    out.securitySchemes = schemes;
  }
  return out;
}
