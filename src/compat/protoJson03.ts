/**
 * The A2A 0.3 proto-JSON dialect (ProtoJSON of the 0.3 `a2a.v1` proto) ↔ the 0.3 JSON-RPC
 * dialect objects (docs/compat.md, digest §5.5). The official 0.3.14 JS SDK and the Python SDK
 * send this dialect over 0.3 REST: `ROLE_USER`, `TASK_STATE_CANCELLED`, `content` instead of
 * `parts` in messages, `file.fileWithUri|fileWithBytes`, `data.data`, `pushNotification` in the
 * send configuration, `{name, pushNotificationConfig}` push configs, `{task|message|statusUpdate|
 * artifactUpdate}` responses. Requests are read in either dialect (a message with `kind` or
 * `parts` is taken as the JSON-RPC dialect, which the 0.3 JS SDK's own REST server also reads);
 * responses are written in the proto dialect, which is what both SDK clients parse.
 *
 * This is the one entry: reading (proto JSON → JSON-RPC dialect) is protoJson03Read.ts,
 * writing (JSON-RPC dialect → proto JSON) is protoJson03Write.ts.
 */
export {
  agentCardFromProto03,
  messageFromProto03,
  pushConfigFromProto03,
  pushConfigListFromProto03,
  pushCreateBodyFromProto03,
  sendParamsFromProto03,
  sendResultFromProto03,
  streamEventFromProto03,
  taskFromProto03,
  taskPushConfigFromProto03,
} from './protoJson03Read.js';
export {
  agentCardToProto03,
  messageToProto03,
  pushCreateToProto03,
  sendParamsToProto03,
  sendResultToProto03,
  streamEventToProto03,
  taskPushConfigToProto03,
  taskToProto03,
  unaryResultToProto03,
} from './protoJson03Write.js';
