/**
 * JSON-RPC client transport for A2A 0.3 agents: the same Transport as the 1.0 one, with the
 * payloads translated by the compat layer (src/compat, docs/compat.md). Requests become 0.3
 * methods and params (`requestToV03`: `message/send`, `tasks/resubscribe`…; ListTasks has no
 * 0.3 method → UnsupportedOperationError), results and stream events are read back into 1.0
 * (`resultToV10`, `streamEventToV10`; a stream ends after the event 0.3 marks `final`), and
 * errors become the same typed A2AErrors as over 1.0 (`errorFromV03`). No A2A-Version header
 * is sent: a server that serves both versions reads its absence as 0.3 (VER-05).
 *
 * SSE event ids are not passed on: 0.3 defines no replay, so a dropped stream is resumed with
 * a plain `tasks/resubscribe` whose opening snapshot is deduplicated by content (streams.ts).
 *
 * Loaded only when a 0.3 agent is met (see v03.ts); the HTTP and SSE plumbing (sending, error
 * responses, event streams) is http.ts's, shared with the 1.0 transports.
 */
import { agentCardToV10 } from '../compat/card.js';
import { errorFromV03 } from '../compat/errors.js';
import { isFinalV03Event, streamEventToV10 } from '../compat/events.js';
import { requestToV03 } from '../compat/requests.js';
import { resultToV10, type V03UnaryMethod } from '../compat/results.js';
import { A2AError } from '../protocol/errors.js';
import { VERSION_HEADER } from '../protocol/serviceParams.js';
import type { AgentCard, OperationResponses, StreamingOperationName, UnaryOperationName } from '../protocol/types.js';
import { readAgentCard } from './cardResolver.js';
import { A2AClientError, withResponse } from './errors.js';
import { errorFromResponse, headersFor, isEventStream, isObject, parseJson, readJson, send, streamItems, withQuery } from './http.js';
import type { FetchLike, StreamItem, Transport, TransportCall } from './transport.js';

/** The version the interfaces of a translated 0.3 (or older 0.x) card are marked with. */
export const V03_VERSION = '0.3';

/** An A2A 0.x card as a 1.0 AgentCard whose interfaces say `protocolVersion: '0.3'`. */
export function readV03Card(raw: unknown): AgentCard {
  const card = agentCardToV10(raw);
  for (const agentInterface of card.supportedInterfaces) agentInterface.protocolVersion = V03_VERSION;
  return card;
}

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

/** A 0.3 result that does not translate is an invalid response, as an unreadable 1.0 one is. */
function translated<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!A2AError.is(error)) throw error;
    throw new A2AClientError('INVALID_RESPONSE', `The A2A 0.3 agent sent an unreadable response: ${error.message}`, { cause: error });
  }
}

export class JsonRpc03Transport implements Transport {
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly fetch: FetchLike,
  ) {}

  private post(call: TransportCall, accept: string): Promise<Response> {
    const { method, params } = requestToV03(call.op, call.request);
    // No A2A-Version: its absence means 0.3 (VER-05), also to servers that speak both versions.
    call.headers.delete(VERSION_HEADER);
    return send(this.fetch, withQuery(this.url, call.query), {
      method: 'POST',
      headers: headersFor(call, { 'content-type': 'application/json', accept }),
      body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, ...(params === undefined ? {} : { params }) }),
      signal: call.signal,
    });
  }

  async unary<K extends UnaryOperationName>(call: TransportCall<K>): Promise<OperationResponses[K]> {
    const method = requestToV03(call.op, call.request).method as V03UnaryMethod;
    const res = await this.post(call, 'application/json');
    if (!res.ok) throw await errorFromResponse(res, httpErrorOf);
    const result = resultOf(await readJson(res), res.status);
    // The extended card is read as the card was (0.3 interfaces), the served JSON kept for rawCardOf.
    if (method === 'agent/getAuthenticatedExtendedCard') {
      return (await readAgentCard(result, async (raw) => translated(() => readV03Card(raw)))) as OperationResponses[K];
    }
    return translated(() => resultToV10(method, result) as OperationResponses[K]);
  }

  async stream(call: TransportCall<StreamingOperationName>): Promise<AsyncIterable<StreamItem>> {
    const res = await this.post(call, 'text/event-stream');
    if (!res.ok) throw await errorFromResponse(res, httpErrorOf);
    if (!isEventStream(res)) {
      resultOf(await readJson(res), res.status);
      throw new A2AClientError('INVALID_RESPONSE', 'The agent answered a streaming call without an event stream');
    }
    let final = false;
    const items = streamItems(res, (sse) => {
      const body = parseJson(sse.data, 'an event');
      // The 0.3 SDKs send `event: error` with a JSON-RPC error response (or the bare error object).
      if (sse.event === 'error' && isObject(body) && !isObject(body.error) && typeof body.code === 'number') throw errorFromV03(body);
      const result = resultOf(body, res.status);
      final = isFinalV03Event(result);
      return translated(() => streamEventToV10(result));
    });
    return (async function* () {
      for await (const { event } of items) {
        yield { event };
        // Stop reading after the last event, also when the server keeps the connection open.
        if (final) return;
      }
    })();
  }
}

/** The 0.3 transport for an interface URL. */
export function jsonRpc03(url: string, fetch: FetchLike): Transport {
  return new JsonRpc03Transport(url, fetch);
}
