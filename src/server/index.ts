export { createA2AHandler, DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH, DEFAULT_MAX_BODY_BYTES } from './createA2AHandler.js';
export type { A2AHandler, A2AHandlerOptions } from './createA2AHandler.js';
export { A2ARequestHandler } from './requestHandler.js';
export type { CallContext, RequestHandlerOptions } from './requestHandler.js';
export type { AgentExecutor, RequestContext, CancelContext } from './agentExecutor.js';
export type { TaskUpdater, ArtifactOptions, Content, StatusMessage, StatusOptions, WholeArtifact, WholeMessage } from './taskUpdater.js';
export { MemoryTaskStore } from './stores/memoryStore.js';
export { VersionConflictError } from './stores/taskStore.js';
export type { TaskStore, TaskRecord, StoredEvent, AppendInput, ListQuery, ListResult } from './stores/taskStore.js';
export { LocalEventBus } from './eventBus.js';
export type { EventBus } from './eventBus.js';
export type { StreamItem } from './taskStream.js';
export { AGENT_CARD_PATH } from './agentCardRoute.js';
export type { HostRefusal, HttpRequest, HttpResponse, HttpHandler } from './http/httpTypes.js';
export type { HttpRoute } from './http/extraRoutes.js';
export { RequestAbortedError } from './http/requestAborted.js';
export { defineAgent, withInterfaces } from './agentDefinition.js';
export type { AgentDefinition, AgentCardBase, InterfaceUrls } from './agentDefinition.js';
export type { ExtendedCardSource } from './extendedCard.js';
export type { Principal } from '../auth/principal.js';
export type {
  AuthConfig,
  AuthFailure,
  Authenticator,
  PeerCertificate,
  SchemeVerifierConfig,
  ApiKeyVerifierConfig,
  JwtVerifierConfig,
  MtlsVerifierConfig,
} from '../auth/authConfig.js';
export { createAuthenticator } from '../auth/authenticator.js';
export { createTenantRouter, TenantRouter } from './tenantRouter.js';
export type { TenantRouterOptions, RequestHandlerLike } from './tenantRouter.js';
export type { TenantA2AHandlerOptions, ExistingHandlerOptions, HttpBindingOptions } from './createA2AHandler.js';
export { logError, formatError } from './errorHook.js';
export type { ErrorContext, ErrorHook } from './errorHook.js';
export { DroppedWriteError } from './agentWrites.js';
export { UnprocessedMessageError } from './unprocessedMessage.js';
// Observing the server: the onCall hook's records, Prometheus metrics, an access log.
export * from '../observability/index.js';
export { ServerHealth } from './serverHealth.js';
export type { Readiness, ServerHealthOptions, ServingStatus, NotServingReason } from './serverHealth.js';
export { healthRoutes, DEFAULT_LIVENESS_PATH, DEFAULT_READINESS_PATH } from './http/healthRoutes.js';
export type { HealthRouteOptions } from './http/healthRoutes.js';
