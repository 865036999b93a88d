/** Runtime-neutral public API: wire types, errors, and helpers shared by client and server. */
export type * from './protocol/types.js';
export {
  A2AError,
  A2A_ERROR_DOMAIN,
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
  ParseError,
  InvalidRequestError,
  MethodNotFoundError,
  InvalidParamsError,
  InternalError,
  PayloadTooLargeError,
} from './protocol/errors.js';
export type { A2AErrorReason, FieldViolation } from './protocol/errors.js';
export { ERROR_TABLE } from './protocol/errorTable.js';
export { applyEvent } from './protocol/applyEvent.js';
export { isTerminalState, isInterruptedState } from './protocol/taskStates.js';
export { PROTOCOL_VERSION, VERSION_HEADER, EXTENSIONS_HEADER } from './protocol/serviceParams.js';
