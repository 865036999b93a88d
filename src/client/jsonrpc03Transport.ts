/**
 * JSON-RPC client transport for A2A 0.3 agents: the same Transport as the 1.0 one, with the
 * payloads translated by the compat layer (src/compat, docs/compat.md) through v03Translate.ts:
 * requests become 0.3 methods and params (`message/send`, `tasks/resubscribe`…; ListTasks has
 * no 0.3 method → UnsupportedOperationError), results and stream events are read back into
 * 1.0 (a stream ends after the event 0.3 marks `final`), and errors become the same typed
 * A2AErrors as over 1.0 (`errorFromV03`). No A2A-Version header is sent (VER-05).
 *
 * Loaded only when a 0.3 agent is met (dualVersion.ts); the HTTP and SSE plumbing is http.ts's,
 * shared with the 1.0 transports.
 */
import { errorFromV03 } from '../compat/errors.js';
import type { V03Call } from '../compat/requests.js';
import type { V03UnaryMethod } from '../compat/results.js';
import type { OperationResponses, StreamingOperationName, UnaryOperationName } from '../protocol/types.js';
import { A2AClientError, withResponse } from './errors.js';
import type { SseEvent } from './sse.js';
import { checkResponseId, errorFromResponse, isObject, openEventStream, parseJson, postJsonRpc, readJson } from './http.js';
import type { StreamItem, Transport, TransportCall, TransportContext } from './transport.js';
import { v03CallOf, v03Result, v03StreamItems } from './v03Translate.js';

/** A JSON-RPC error object (`{code, message, data}`) in a JSON-RPC response, as a typed error. */
function errorOf(body: unknown): Error | undefined {
  return isObject(body) && isObject(body.error) ? errorFromV03(body.error) : undefined;
}

/** A failed HTTP response counts as JSON-RPC only with a JSON-RPC envelope. */
function httpErrorOf(body: unknown): Error | undefined {
  return isObject(body) && body.jsonrpc === '2.0' ? errorOf(body) : undefined;
}

/** The `result` of a 0.3 JSON-RPC response (any JSON value: `null` for delete), or its error thrown. */
function resultOf(body: unknown, status: number): unknown {
  const error = errorOf(body);
  if (error) throw withResponse(error, { status });
  if (isObject(body) && 'result' in body) return body.result;
  throw new A2AClientError('INVALID_RESPONSE', 'The agent sent a JSON-RPC response without a result', { status });
}

export class JsonRpc03Transport implements Transport {
  constructor(
    private readonly url: string,
    private readonly context: TransportContext,
  ) {}

  private post(call: TransportCall, { method, params }: V03Call, accept: string): Promise<{ res: Response; id: number }> {
    return postJsonRpc(this.context.fetch, this.url, { call, method, params, accept });
  }

  async unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    const v03 = v03CallOf(call);
    const { res, id } = await this.post(call, v03, 'application/json');
    if (!res.ok) throw await errorFromResponse(res, httpErrorOf);
    const body = await readJson(res, this.context);
    checkResponseId(body, { id, status: res.status });
    return v03Result<K>(v03.method as V03UnaryMethod, resultOf(body, res.status));
  }

  async stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    const { res, id } = await this.post(call, v03CallOf(call), 'text/event-stream');
    // The JSON answer in place of a stream and every event are each a JSON-RPC response to this request (RPC-09).
    const answer = (body: unknown) => {
      checkResponseId(body, { id, status: res.status });
      return resultOf(body, res.status);
    };
    await openEventStream(res, { errorOf: httpErrorOf, bodyError: answer, limits: this.context });
    const decode = (sse: SseEvent): unknown => {
      const body = parseJson(sse.data, 'an event');
      // The 0.3 SDKs send `event: error` with a JSON-RPC error response (or the bare error object).
      if (sse.event === 'error' && isObject(body) && !isObject(body.error) && typeof body.code === 'number') throw errorFromV03(body);
      return answer(body);
    };
    return v03StreamItems(res, { decode, limits: this.context });
  }
}

/** The 0.3 transport for an interface URL. */
export function jsonRpc03(url: string, context: TransportContext): Transport {
  return new JsonRpc03Transport(url, context);
}
