/**
 * A2A 0.3 wire types, JSON-RPC dialect (tag v0.3.0 `types/src/types.ts`, the shapes the 0.3
 * JSON-RPC binding and the official 0.3 SDKs exchange): `kind` discriminators, lowercase
 * roles and kebab-case task states. Our own definitions, so the package does not depend on an
 * SDK; `test/compat/sdkTypes.test.ts` checks them against `@a2a-js/sdk@0.3` at compile time.
 */
import type { JsonObject, JsonValue } from '../protocol/types.js';

export type V03TaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'auth-required'
  | 'unknown';

export type V03Role = 'user' | 'agent';

export interface V03TextPart {
  kind: 'text';
  text: string;
  metadata?: JsonObject;
}
export interface V03FileWithBytes {
  bytes: string;
  mimeType?: string;
  name?: string;
}
export interface V03FileWithUri {
  uri: string;
  mimeType?: string;
  name?: string;
}
export interface V03FilePart {
  kind: 'file';
  file: V03FileWithBytes | V03FileWithUri;
  metadata?: JsonObject;
}
export interface V03DataPart {
  kind: 'data';
  /** 0.3 only allows an object here (1.0 allows any JSON value). */
  data: JsonObject;
  metadata?: JsonObject;
}
export type V03Part = V03TextPart | V03FilePart | V03DataPart;

export interface V03Message {
  kind: 'message';
  messageId: string;
  role: V03Role;
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  referenceTaskIds?: string[];
  extensions?: string[];
  metadata?: JsonObject;
}

export interface V03TaskStatus {
  state: V03TaskState;
  message?: V03Message;
  timestamp?: string;
}

export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface V03Task {
  kind: 'task';
  id: string;
  /** REQUIRED in 0.3. */
  contextId: string;
  status: V03TaskStatus;
  history?: V03Message[];
  artifacts?: V03Artifact[];
  metadata?: JsonObject;
}

export interface V03TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: V03TaskStatus;
  /** REQUIRED in 0.3: true on the event that ends the stream. */
  final: boolean;
  metadata?: JsonObject;
}

export interface V03TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** `message/send` result. */
export type V03SendMessageResult = V03Task | V03Message;
/** One `message/stream` / `tasks/resubscribe` result (and the 0.3 push payload is a V03Task). */
export type V03StreamEvent = V03Task | V03Message | V03TaskStatusUpdateEvent | V03TaskArtifactUpdateEvent;

export interface V03PushNotificationAuthenticationInfo {
  schemes: string[];
  credentials?: string;
}

export interface V03PushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: V03PushNotificationAuthenticationInfo;
}

export interface V03TaskPushNotificationConfig {
  taskId: string;
  pushNotificationConfig: V03PushNotificationConfig;
}

export interface V03MessageSendConfiguration {
  acceptedOutputModes?: string[];
  historyLength?: number;
  pushNotificationConfig?: V03PushNotificationConfig;
  /** Absent means blocking (reference SDKs). */
  blocking?: boolean;
}

export interface V03MessageSendParams {
  message: V03Message;
  configuration?: V03MessageSendConfiguration;
  metadata?: JsonObject;
}

export interface V03TaskQueryParams {
  id: string;
  historyLength?: number;
  metadata?: JsonObject;
}

export interface V03TaskIdParams {
  id: string;
  metadata?: JsonObject;
}

export interface V03GetTaskPushNotificationConfigParams {
  id: string;
  pushNotificationConfigId?: string;
  metadata?: JsonObject;
}

export interface V03ListTaskPushNotificationConfigParams {
  id: string;
  metadata?: JsonObject;
}

export interface V03DeleteTaskPushNotificationConfigParams {
  id: string;
  pushNotificationConfigId: string;
  metadata?: JsonObject;
}

// ---- JSON-RPC ----

export type V03Method =
  | 'message/send'
  | 'message/stream'
  | 'tasks/get'
  | 'tasks/cancel'
  | 'tasks/resubscribe'
  | 'tasks/pushNotificationConfig/set'
  | 'tasks/pushNotificationConfig/get'
  | 'tasks/pushNotificationConfig/list'
  | 'tasks/pushNotificationConfig/delete'
  | 'agent/getAuthenticatedExtendedCard';

/** The params type of each 0.3 method (`undefined`: the method takes none). */
export interface V03MethodParams {
  'message/send': V03MessageSendParams;
  'message/stream': V03MessageSendParams;
  'tasks/get': V03TaskQueryParams;
  'tasks/cancel': V03TaskIdParams;
  'tasks/resubscribe': V03TaskIdParams;
  'tasks/pushNotificationConfig/set': V03TaskPushNotificationConfig;
  'tasks/pushNotificationConfig/get': V03GetTaskPushNotificationConfigParams;
  'tasks/pushNotificationConfig/list': V03ListTaskPushNotificationConfigParams;
  'tasks/pushNotificationConfig/delete': V03DeleteTaskPushNotificationConfigParams;
  'agent/getAuthenticatedExtendedCard': undefined;
}

/** The `result` of each unary 0.3 method (streaming methods: one V03StreamEvent per SSE event). */
export interface V03MethodResults {
  'message/send': V03SendMessageResult;
  'tasks/get': V03Task;
  'tasks/cancel': V03Task;
  'tasks/pushNotificationConfig/set': V03TaskPushNotificationConfig;
  'tasks/pushNotificationConfig/get': V03TaskPushNotificationConfig;
  'tasks/pushNotificationConfig/list': V03TaskPushNotificationConfig[];
  'tasks/pushNotificationConfig/delete': null;
  'agent/getAuthenticatedExtendedCard': V03AgentCard;
}

/** A 0.3 JSON-RPC error object: `data` is free-form (an object in the 0.3 schema). */
export interface V03JsonRpcError {
  code: number;
  message: string;
  data?: { [key: string]: JsonValue };
}

// ---- Agent card ----

export interface V03AgentInterface {
  url: string;
  /** `JSONRPC`, `GRPC`, `HTTP+JSON` or a custom name. */
  transport: string;
}

export interface V03AgentProvider {
  organization: string;
  url: string;
}

export interface V03AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: JsonObject;
}

export interface V03AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  stateTransitionHistory?: boolean;
  extensions?: V03AgentExtension[];
}

/** OR of ANDs: scheme name → scopes. */
export type V03SecurityRequirement = { [scheme: string]: string[] };

export interface V03AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  security?: V03SecurityRequirement[];
}

export interface V03AgentCardSignature {
  protected: string;
  signature: string;
  header?: JsonObject;
}

export interface V03AuthorizationCodeOAuthFlow {
  authorizationUrl: string;
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}
export interface V03ClientCredentialsOAuthFlow {
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}
export interface V03ImplicitOAuthFlow {
  authorizationUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}
export interface V03PasswordOAuthFlow {
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}
export interface V03OAuthFlows {
  authorizationCode?: V03AuthorizationCodeOAuthFlow;
  clientCredentials?: V03ClientCredentialsOAuthFlow;
  implicit?: V03ImplicitOAuthFlow;
  password?: V03PasswordOAuthFlow;
}

export interface V03APIKeySecurityScheme {
  type: 'apiKey';
  in: 'cookie' | 'header' | 'query';
  name: string;
  description?: string;
}
export interface V03HTTPAuthSecurityScheme {
  type: 'http';
  scheme: string;
  bearerFormat?: string;
  description?: string;
}
export interface V03OAuth2SecurityScheme {
  type: 'oauth2';
  flows: V03OAuthFlows;
  oauth2MetadataUrl?: string;
  description?: string;
}
export interface V03OpenIdConnectSecurityScheme {
  type: 'openIdConnect';
  openIdConnectUrl: string;
  description?: string;
}
export interface V03MutualTLSSecurityScheme {
  type: 'mutualTLS';
  description?: string;
}
export type V03SecurityScheme =
  | V03APIKeySecurityScheme
  | V03HTTPAuthSecurityScheme
  | V03OAuth2SecurityScheme
  | V03OpenIdConnectSecurityScheme
  | V03MutualTLSSecurityScheme;

export interface V03AgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport?: string;
  additionalInterfaces?: V03AgentInterface[];
  version: string;
  provider?: V03AgentProvider;
  iconUrl?: string;
  documentationUrl?: string;
  capabilities: V03AgentCapabilities;
  securitySchemes?: { [name: string]: V03SecurityScheme };
  security?: V03SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: V03AgentSkill[];
  supportsAuthenticatedExtendedCard?: boolean;
  signatures?: V03AgentCardSignature[];
}
