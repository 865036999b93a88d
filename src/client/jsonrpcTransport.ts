/**
 * JSON-RPC 2.0 binding (§9), client side: POST to the interface URL, method = the proto rpc
 * name, params = the request message (tenant included, TENANT-04); streams are SSE whose
 * `data` is a full JSON-RPC response (RPC-07). Errors become typed A2AErrors (fromJsonRpcError).
 */
import { fromJsonRpcError, type JsonRpcErrorObject } from '../bindings/jsonrpc/errorObject.js';
import type { OperationName, OperationResponses, StreamingOperationName, UnaryOperationName } from '../protocol/types.js';
import { A2AClientError, withResponse } from './errors.js';
import { checkEvent } from './responses.js';
import { checkResponseId, errorFromResponse, isObject, openEventStream, parseJson, postJsonRpc, readJson, streamItems } from './http.js';
import type { StreamItem, Transport, TransportCall, TransportContext, TransportFactory } from './transport.js';
import { withV03 } from './dualVersion.js';

/** `getTask` → `GetTask` (RPC-02). */
function rpcName(op: OperationName): string {
  return op.charAt(0).toUpperCase() + op.slice(1);
}

function errorOf(body: unknown): Error | undefined {
  return isObject(body) && isObject(body.error) ? fromJsonRpcError(body.error as unknown as JsonRpcErrorObject) : undefined;
}

/** A failed HTTP response counts as JSON-RPC only with a JSON-RPC envelope (a gateway's 429 body is not). */
function httpErrorOf(body: unknown): Error | undefined {
  return isObject(body) && body.jsonrpc === '2.0' ? errorOf(body) : undefined;
}

/** The `result` of a JSON-RPC response, or its error thrown. */
function resultOf(body: unknown, status: number, op?: OperationName): unknown {
  const error = errorOf(body);
  if (error) throw withResponse(error, { status });
  if (isObject(body) && isObject(body.result)) return body.result;
  // B10: Delete returns `{}`; servers in 0.3 style (the official SDK among them) send null.
  if (op === 'deleteTaskPushNotificationConfig' && isObject(body) && body.result === null) return {};
  throw new A2AClientError('INVALID_RESPONSE', 'The agent sent a JSON-RPC response without a result object', { status });
}

class JsonRpcTransport implements Transport {
  constructor(
    private readonly url: string,
    private readonly context: TransportContext,
  ) {}

  private post(call: TransportCall, accept: string): Promise<{ res: Response; id: number }> {
    return postJsonRpc(this.context.fetch, this.url, { call, method: rpcName(call.op), params: call.request, accept });
  }

  async unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    const { res, id } = await this.post(call, 'application/json');
    if (!res.ok) throw await errorFromResponse(res, httpErrorOf);
    const body = await readJson(res, this.context);
    checkResponseId(body, { id, status: res.status });
    return resultOf(body, res.status, call.op) as OperationResponses[K];
  }

  async stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    const { res, id } = await this.post(call, 'text/event-stream');
    // RPC-07 / RPC-09: the JSON answer in place of a stream (STREAM-12: an error found before the
    // first event) and every event are each a JSON-RPC response to this request: its id, its result.
    const answer = (body: unknown) => {
      checkResponseId(body, { id, status: res.status });
      return resultOf(body, res.status);
    };
    await openEventStream(res, { errorOf: httpErrorOf, bodyError: answer, limits: this.context });
    return streamItems(res, (sse) => {
      const body = parseJson(sse.data, 'an event');
      // B9: `event: error` carries a JSON-RPC error response (or, from some servers, the bare error object).
      if (sse.event === 'error' && isObject(body) && !isObject(body.error) && typeof body.code === 'number') {
        throw fromJsonRpcError(body as unknown as JsonRpcErrorObject);
      }
      return checkEvent(answer(body));
    }, this.context);
  }
}

/** JSON-RPC at A2A 1.0, and at 0.3 (jsonrpc03Transport.ts, loaded on first use; see dualVersion.ts). */
export const jsonRpcTransport: TransportFactory = withV03({
  binding: 'JSONRPC',
  create: (agentInterface, context) => new JsonRpcTransport(agentInterface.url, context),
  load: async () => (await import('./jsonrpc03Transport.js')).jsonRpc03,
});
