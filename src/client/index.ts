/**
 * The A2A client: `createClient(url | card)` and the eleven operations over JSON-RPC or
 * HTTP+JSON, at A2A 1.0 or 0.3 (more transports plug in through `transports`). Runtime-neutral: fetch,
 * ReadableStream, TextDecoder and btoa only — no `node:*`, no Buffer.
 */
export { createClient, A2AClient, BUILTIN_TRANSPORTS } from './client.js';
export type { CallOptions, ClientOptions, SendOptions } from './client.js';
export { A2AClientError, CardVerificationError, responseInfo } from './errors.js';
export type { A2AClientErrorCode, ResponseInfo } from './errors.js';
export { resolveCard, cardUrlFor, rawCardOf, readV03Card, CardCache, defaultCardCache, WELL_KNOWN_CARD_PATH } from './cardResolver.js';
export type { ResolveCardOptions, CardCacheOptions, CardSignatureMode, CardVerificationOptions } from './cardResolver.js';
export { selectInterface, SUPPORTED_VERSIONS, V03_VERSION } from './transport.js';
export type { InterfacePreferences, Transport, TransportCall, TransportContext, TransportFactory, StreamItem, FetchLike } from './transport.js';
export { jsonRpcTransport } from './jsonrpcTransport.js';
export { restTransport } from './restTransport.js';
export { apiKey, bearerToken, oauth2ClientCredentials } from './auth.js';
export type { ApiKeyOptions, ClientCredentialsOptions, TokenSource } from './auth.js';
export type { AuthProvider, CallResult, ClientCall, Interceptor } from './interceptors.js';
export type { RetryOptions } from './retry.js';
export { TaskAssembler, collectTask } from './streams.js';
export type { ResumeOptions, WaitOptions } from './streams.js';
export { createMessage, textPart, dataPart, filePart, bytesToBase64 } from './messages.js';
export type { FileInput, MessageInput } from './messages.js';
export { SseParser, readSse } from './sse.js';
export type { SseEvent } from './sse.js';
// The protocol's typed errors, so callers can `catch` them from this entry point too.
export {
  A2AError,
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
  InvalidParamsError,
  InternalError,
} from '../protocol/errors.js';
export type * from '../protocol/types.js';
