/**
 * Public A2A 1.0 types: the wire JSON (ProtoJSON) shapes of `proto/a2a.proto`.
 * Enums are their names as strings, oneofs are discriminated by member name, timestamps are
 * RFC 3339 strings and bytes are base64 strings. `test/types.test.ts` checks these against the
 * JSON types generated from the proto, so the two cannot drift.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type TaskState =
  | 'TASK_STATE_UNSPECIFIED'
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_REJECTED'
  | 'TASK_STATE_AUTH_REQUIRED';

export type Role = 'ROLE_UNSPECIFIED' | 'ROLE_USER' | 'ROLE_AGENT';

interface PartCommon {
  metadata?: JsonObject;
  filename?: string;
  mediaType?: string;
}
export type TextPart = PartCommon & { text: string };
/** Inline bytes, base64-encoded. */
export type RawPart = PartCommon & { raw: string };
export type UrlPart = PartCommon & { url: string };
export type DataPart = PartCommon & { data: JsonValue };
export type Part = TextPart | RawPart | UrlPart | DataPart;

export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: Role;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp?: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface Task {
  id: string;
  contextId?: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: JsonObject;
}

export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: JsonObject;
}

export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

export type SendMessageResponse = { task: Task } | { message: Message };

export interface AuthenticationInfo {
  scheme: string;
  credentials?: string;
}

export interface TaskPushNotificationConfig {
  tenant?: string;
  id?: string;
  taskId?: string;
  url: string;
  token?: string;
  authentication?: AuthenticationInfo;
}

export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: TaskPushNotificationConfig;
  historyLength?: number;
  returnImmediately?: boolean;
}

export interface SendMessageRequest {
  tenant?: string;
  message: Message;
  configuration?: SendMessageConfiguration;
  metadata?: JsonObject;
}

export interface GetTaskRequest {
  tenant?: string;
  id: string;
  historyLength?: number;
}

export interface ListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}

export interface ListTasksResponse {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

export interface CancelTaskRequest {
  tenant?: string;
  id: string;
  metadata?: JsonObject;
}

export interface SubscribeToTaskRequest {
  tenant?: string;
  id: string;
}

export interface GetTaskPushNotificationConfigRequest {
  tenant?: string;
  taskId: string;
  id: string;
}

export interface DeleteTaskPushNotificationConfigRequest {
  tenant?: string;
  taskId: string;
  id: string;
}

export interface ListTaskPushNotificationConfigsRequest {
  tenant?: string;
  taskId: string;
  pageSize?: number;
  pageToken?: string;
}

export interface ListTaskPushNotificationConfigsResponse {
  configs?: TaskPushNotificationConfig[];
  nextPageToken?: string;
}

export interface GetExtendedAgentCardRequest {
  tenant?: string;
}

// ---- Agent card ----

export interface AgentInterface {
  url: string;
  /** `JSONRPC`, `GRPC`, `HTTP+JSON`, or a URI for a custom binding. */
  protocolBinding: string;
  tenant?: string;
  protocolVersion: string;
}

export interface AgentProvider {
  url: string;
  organization: string;
}

export interface AgentExtension {
  uri?: string;
  description?: string;
  required?: boolean;
  params?: JsonObject;
}

export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard?: boolean;
}

export interface StringList {
  list?: string[];
}

export interface SecurityRequirement {
  schemes?: Record<string, StringList>;
}

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: SecurityRequirement[];
}

export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: JsonObject;
}

export interface APIKeySecurityScheme {
  description?: string;
  location: string;
  name: string;
}
export interface HTTPAuthSecurityScheme {
  description?: string;
  scheme: string;
  bearerFormat?: string;
}
export interface AuthorizationCodeOAuthFlow {
  authorizationUrl: string;
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
  pkceRequired?: boolean;
}
export interface ClientCredentialsOAuthFlow {
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}
export interface ImplicitOAuthFlow {
  authorizationUrl?: string;
  refreshUrl?: string;
  scopes?: Record<string, string>;
}
export interface PasswordOAuthFlow {
  tokenUrl?: string;
  refreshUrl?: string;
  scopes?: Record<string, string>;
}
export interface DeviceCodeOAuthFlow {
  deviceAuthorizationUrl: string;
  tokenUrl: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}
export type OAuthFlows =
  | { authorizationCode: AuthorizationCodeOAuthFlow }
  | { clientCredentials: ClientCredentialsOAuthFlow }
  | { implicit: ImplicitOAuthFlow }
  | { password: PasswordOAuthFlow }
  | { deviceCode: DeviceCodeOAuthFlow };
export interface OAuth2SecurityScheme {
  description?: string;
  flows: OAuthFlows;
  oauth2MetadataUrl?: string;
}
export interface OpenIdConnectSecurityScheme {
  description?: string;
  openIdConnectUrl: string;
}
export interface MutualTlsSecurityScheme {
  description?: string;
}
export type SecurityScheme =
  | { apiKeySecurityScheme: APIKeySecurityScheme }
  | { httpAuthSecurityScheme: HTTPAuthSecurityScheme }
  | { oauth2SecurityScheme: OAuth2SecurityScheme }
  | { openIdConnectSecurityScheme: OpenIdConnectSecurityScheme }
  | { mtlsSecurityScheme: MutualTlsSecurityScheme };

export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: AgentProvider;
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilities;
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  signatures?: AgentCardSignature[];
  iconUrl?: string;
}

/** The request message of each operation, keyed by the camelCase rpc name. */
export interface OperationRequests {
  sendMessage: SendMessageRequest;
  sendStreamingMessage: SendMessageRequest;
  getTask: GetTaskRequest;
  listTasks: ListTasksRequest;
  cancelTask: CancelTaskRequest;
  subscribeToTask: SubscribeToTaskRequest;
  createTaskPushNotificationConfig: TaskPushNotificationConfig;
  getTaskPushNotificationConfig: GetTaskPushNotificationConfigRequest;
  listTaskPushNotificationConfigs: ListTaskPushNotificationConfigsRequest;
  deleteTaskPushNotificationConfig: DeleteTaskPushNotificationConfigRequest;
  getExtendedAgentCard: GetExtendedAgentCardRequest;
}

/** The unary response message of each non-streaming operation. */
export interface OperationResponses {
  sendMessage: SendMessageResponse;
  getTask: Task;
  listTasks: ListTasksResponse;
  cancelTask: Task;
  createTaskPushNotificationConfig: TaskPushNotificationConfig;
  getTaskPushNotificationConfig: TaskPushNotificationConfig;
  listTaskPushNotificationConfigs: ListTaskPushNotificationConfigsResponse;
  deleteTaskPushNotificationConfig: Record<string, never>;
  getExtendedAgentCard: AgentCard;
}

export type OperationName = keyof OperationRequests;
export type UnaryOperationName = keyof OperationResponses;
export type StreamingOperationName = 'sendStreamingMessage' | 'subscribeToTask';
