/**
 * A2A 0.3 over gRPC (issue 9): the service `a2a.v1.A2AService` of the v0.3.0 proto, served on
 * the same grpc-js Server as `lf.a2a.v1.A2AService` (the package differs, so both fit on one
 * port) and over the same request handler. Each call: binary → 0.3 proto JSON (codec.ts) →
 * the 0.3 JSON-RPC params (v03Codec.ts) → the shared 0.3 call (../compat03.ts: `requestToV10`,
 * `handler.unary/stream`, `resultToV03` / `streamItemToV03`) → 0.3 proto JSON → binary. No
 * operation is implemented twice. Service parameters, authentication, errors (google.rpc.Status
 * with ErrorInfo) and streams are the 1.0 service's (createServiceOver); what differs:
 *
 *  - the version: no `a2a-version` (or `0.3`) is served; a 1.x version is VersionNotSupported
 *    (the request has the 0.3 shape), listing the listener's versions as over HTTP;
 *  - status codes of PushNotificationNotSupported and UnsupportedOperation are UNIMPLEMENTED, as
 *    the 0.3 JS SDK's gRPC server sends them and its client reads them (ErrorInfo is the same);
 *  - TaskSubscription to a task in a terminal state answers that task and completes (0.3 proto
 *    comment, and what the 0.3 JS SDK does), where 1.0 answers UnsupportedOperation;
 *  - GetAgentCard answers the extended card when the agent declares one (the 0.3 JS SDK serves
 *    `getAuthenticatedExtendedAgentCard` there), else the public card, both as 0.3 cards: the
 *    forms of `options.v03Cards` (signed ones, when serveAgent signs its cards; SIGN-09).
 */
import { V03CardForms, type V03CardFormOptions } from '../../compat/card03.js';
import { streamEventToProto03 } from '../../compat/protoJson03.js';
import { requestToV10 } from '../../compat/requests.js';
import { A2AError } from '../../protocol/errors.js';
import { isTerminalState } from '../../protocol/taskStates.js';
import type { StreamingOperationName, Task } from '../../protocol/types.js';
import type { A2ARequestHandler, CallContext } from '../../server/requestHandler.js';
import { observed } from '../../server/callObserver.js';
import { singleItem, type StreamItem } from '../../server/taskStream.js';
import { V03_SERVED_BINDINGS, streamItemToV03, streamV03, unaryV03, v03Operation } from '../compat03.js';
import { requestToJson } from './codec.js';
import type { GrpcStatusOverrides } from './errors.js';
import {
  createServiceOver,
  encodeResponse,
  type GrpcRpc,
  type GrpcRpcCall,
  type GrpcRpcStream,
  type GrpcService,
  type GrpcServiceOptions,
  type HandlerSource,
} from './server.js';
import { GRPC03_METHODS, agentCardOverGrpc03, paramsFromGrpc03, resultToGrpc03, type Grpc03Method } from './v03Codec.js';

/** The bindings whose 1.0 endpoints also answer 0.3 when the 0.3 gRPC service is served (advertised on 0.3 cards). */
export const V03_GRPC_CARD_BINDINGS: readonly string[] = [...V03_SERVED_BINDINGS, 'GRPC'];

/** How GetAgentCard's 0.3 cards are made: listing the 0.3 gRPC interface, signed (when they are) as the 0.3 proto carries them. */
export const GRPC03_CARD_FORMS: V03CardFormOptions = { bindings: V03_GRPC_CARD_BINDINGS, carried: agentCardOverGrpc03 };

/** The 0.3 JS SDK's gRPC status codes where they differ from the 1.0 table. */
const V03_STATUS_CODES: GrpcStatusOverrides = {
  PUSH_NOTIFICATION_NOT_SUPPORTED: 'UNIMPLEMENTED',
  UNSUPPORTED_OPERATION: 'UNIMPLEMENTED',
};

export interface Grpc03ServiceOptions extends GrpcServiceOptions {
  /**
   * The 0.3 forms of the cards GetAgentCard answers — signed: `signV03CardForms(cards, sign,
   * GRPC03_CARD_FORMS)` —, or a function returning them when they are made after the listener
   * (serveAgent). Default: derived per call, unsigned, listing the JSON-RPC, HTTP+JSON and gRPC
   * 0.3 interfaces.
   */
  v03Cards?: V03CardForms | (() => V03CardForms | undefined);
}

/** The 0.3 service over the handler (`serveGrpc` adds it unless `compat03: false`). */
export function createGrpc03Service(source: HandlerSource, options: Grpc03ServiceOptions = {}): GrpcService {
  const derived = new V03CardForms(GRPC03_CARD_FORMS);
  const given = options.v03Cards;
  const forms = typeof given === 'function' ? () => given() ?? derived : () => given ?? derived;
  return createServiceOver(source, { rpcs: GRPC03_METHODS.map((method) => rpcOf(method, forms)), dialect: '0.3', statusCodes: V03_STATUS_CODES }, options);
}

function rpcOf(method: Grpc03Method, forms: () => V03CardForms): GrpcRpc {
  const rpc: GrpcRpc = { key: method.key, rpc: method.rpc, path: method.path, streaming: method.streaming, operation: v03Operation(method.method) };
  if (method.streaming) rpc.stream = (call) => stream03(method, call);
  else rpc.unary = (call) => unary03(method, call, forms());
  return rpc;
}

async function unary03(method: Grpc03Method, { handler, request, ctx }: GrpcRpcCall, v03Cards: V03CardForms): Promise<Buffer> {
  const params = paramsFromGrpc03(method.method, requestToJson(method.input, request));
  // GetAgentCard is the extended card's method (authenticated like GetExtendedAgentCard); an agent without one answers its public card.
  // (An Agent Card request, not a call for onCall: docs/agents.md.)
  const publicCard = method.method === 'agent/getAuthenticatedExtendedCard' && handler.agentCard.capabilities.extendedAgentCard !== true;
  const answer = async () => encodeResponse(method.output, resultToGrpc03(method.method, publicCard ? await v03Cards.of(handler.agentCard) : await unaryV03({ handler, v03Cards }, { method: method.method, params }, ctx)));
  // Encoded inside the call's observation: an answer that cannot be written is the call's error (onCall).
  return publicCard ? answer() : observed(handler, { operation: v03Operation(method.method), ctx }, answer);
}

async function stream03(method: Grpc03Method, { handler, request, ctx }: GrpcRpcCall): Promise<GrpcRpcStream> {
  const params = paramsFromGrpc03(method.method, requestToJson(method.input, request));
  const encode = (event: StreamItem['event']): Buffer => encodeResponse(method.output, streamEventToProto03(streamItemToV03(event)));
  const open = async (): Promise<AsyncIterable<StreamItem>> => {
    try {
      return await streamV03({ handler }, { method: method.method, params }, ctx);
    } catch (error) {
      if (method.method !== 'tasks/resubscribe') throw error;
      return singleItem({ event: { task: await terminalTask(handler, { params, ctx, error }) } });
    }
  };
  // One call for the `onCall` hook, also when a resubscribe to a finished task is answered by GetTask.
  const operation = v03Operation(method.method) as StreamingOperationName;
  return { items: handler.calls ? await handler.calls.stream(operation, ctx, open) : await open(), encode };
}

/**
 * 0.3 TaskSubscription to a finished task: the task, as GetTask returns it. The handler refuses
 * the subscription with UnsupportedOperation; any other refusal (or a task that is not
 * terminal) is passed on unchanged.
 */
async function terminalTask(handler: A2ARequestHandler, failed: { params: unknown; ctx: CallContext; error: unknown }): Promise<Task> {
  const { error } = failed;
  if (!A2AError.is(error) || error.reason !== 'UNSUPPORTED_OPERATION') throw error;
  const { request } = requestToV10('tasks/get', failed.params);
  const task = await handler.unary('getTask', request as { id: string }, failed.ctx);
  if (!isTerminalState(task.status.state)) throw error;
  return task;
}
