/**
 * What the A2A 0.3 transports (jsonrpc03Transport.ts, rest03Transport.ts) share: the 0.3 card
 * read as a 1.0 card, the 1.0 request as a 0.3 method and params (`requestToV03`), 0.3 results
 * and stream events (JSON-RPC dialect; the REST transport converts the proto dialect first)
 * read back into 1.0, and the end of a 0.3 stream at the event marked `final`; and where a 1.0
 * call refused with VersionNotSupported is repeated over 0.3.
 *
 * Loaded only when a 0.3 agent is met (dualVersion.ts, cardResolver.ts): bundlers that split
 * dynamic imports keep the compat layer (src/compat) out of the initial chunk.
 */
import { agentCardToV10 } from '../compat/card.js';
import { isFinalV03Event, streamEventToV10 } from '../compat/events.js';
import { requestToV03, type V03Call } from '../compat/requests.js';
import { resultToV10, type V03UnaryMethod } from '../compat/results.js';
import { A2AError } from '../protocol/errors.js';
import { EXTENSIONS_HEADER, EXTENSIONS_HEADER_V03, V03_VERSION, VERSION_HEADER, parseVersion, versionOf } from '../protocol/serviceParams.js';
import type { AgentCard, AgentInterface, OperationResponses, UnaryOperationName } from '../protocol/types.js';
import { readAgentCard } from './cardResolver.js';
import { A2AClientError, notSent, type A2AClientErrorCode } from './errors.js';
import { streamItems } from './http.js';
import { checkEvent } from './responses.js';
import type { SseEvent, SseReadOptions } from './sse.js';
import type { StreamItem, TransportCall, TransportContext } from './transport.js';

/** An A2A 0.x card as a 1.0 AgentCard whose interfaces say `protocolVersion: '0.3'`. */
export function readV03Card(raw: unknown): AgentCard {
  const card = agentCardToV10(raw);
  for (const agentInterface of card.supportedInterfaces) agentInterface.protocolVersion = V03_VERSION;
  return card;
}

/** `read`, an A2AError it throws (0.3 JSON that does not translate) becoming the client error `code`, its message after `what`. */
function readable<T>(read: () => T, code: A2AClientErrorCode, what: string): T {
  try {
    return read();
  } catch (error) {
    if (!A2AError.is(error)) throw error;
    throw new A2AClientError(code, `${what}: ${error.message}`, { cause: error });
  }
}

/** A 0.3 result that does not translate is an invalid response, as an unreadable 1.0 one is. */
export function translated<T>(read: () => T): T {
  return readable(read, 'INVALID_RESPONSE', 'The A2A 0.3 agent sent an unreadable response');
}

/** A fetched 0.3 card (cardResolver.readV03Card): one that does not translate is BAD_CARD, named by `source`. */
export function readFetchedV03Card(raw: unknown, source: string): AgentCard {
  return readable(() => readV03Card(raw), 'BAD_CARD', `${source} is not a readable A2A 0.3 card`);
}

/**
 * Where a 1.0 call answered with VersionNotSupported is repeated over 0.3 (dualVersion.ts): at
 * the card's 0.3 interface of the binding, else at the same URL when the error lists 0.3 as
 * supported; nowhere (undefined) when neither, or when the client's `versions` leave 0.3 out
 * (VER-09: pinned to 1.0).
 */
export function v03FallbackUrl(error: A2AError, { agentInterface, context }: { agentInterface: AgentInterface; context: TransportContext }): string | undefined {
  if (context.versions && !context.versions.includes(V03_VERSION)) return undefined;
  const listed = (error.metadata.supportedVersions ?? '').split(/[\s,]+/).some((v) => parseVersion(v) === V03_VERSION);
  const v03 = context.card?.supportedInterfaces.find((i) => i.protocolBinding === agentInterface.protocolBinding && versionOf(i) === V03_VERSION);
  return v03?.url ?? (listed ? agentInterface.url : undefined);
}

/**
 * The 0.3 method and params of a call (ListTasks → UnsupportedOperationError, nothing sent:
 * marked `notSent`, so that callers such as the CLI do not report it as the agent's answer).
 * A2A-Version is removed: its absence means 0.3 (VER-05), also to servers that speak both.
 * A2A-Extensions travels under its 0.3 name X-A2A-Extensions (header or gRPC metadata), the
 * only one the 0.3 SDK servers read.
 */
export function v03CallOf(call: TransportCall): V03Call {
  let v03: V03Call;
  try {
    v03 = requestToV03(call.op, call.request);
  } catch (error) {
    throw error instanceof Error ? notSent(error) : error;
  }
  call.headers.delete(VERSION_HEADER);
  const extensions = call.headers.get(EXTENSIONS_HEADER);
  if (extensions !== null) {
    call.headers.delete(EXTENSIONS_HEADER);
    call.headers.append(EXTENSIONS_HEADER_V03, extensions);
  }
  return v03;
}

/**
 * A unary 0.3 result (JSON-RPC dialect) as the 1.0 response. The extended card is read as the
 * card was (0.3 interfaces), the JSON as served kept for rawCardOf.
 */
export async function v03Result<K extends UnaryOperationName>(method: V03UnaryMethod, result: unknown): Promise<OperationResponses[K]> {
  if (method === 'agent/getAuthenticatedExtendedCard') {
    return (await readAgentCard(result, async (raw) => translated(() => readV03Card(raw)))) as OperationResponses[K];
  }
  return translated(() => resultToV10(method, result) as OperationResponses[K]);
}

/**
 * One 0.3 stream event (JSON-RPC dialect) as the 1.0 event, checked as a 1.0 one is (JSON-08),
 * and whether the 0.3 stream ends with it (`final`, or a message): what every 0.3 transport's
 * stream reads.
 */
export function v03Event(event: unknown): { event: StreamItem['event']; final: boolean } {
  return { event: checkEvent(translated(() => streamEventToV10(event))), final: isFinalV03Event(event) };
}

/**
 * The 1.0 events of a 0.3 SSE response; `decode` turns one SSE event into the 0.3 stream event
 * (JSON-RPC dialect) or throws its error; `limits` as streamItems'. Reading stops after the event 0.3 marks `final` (or
 * a message), also when the server keeps the connection open. SSE ids are not passed on: 0.3
 * defines no replay, so a dropped stream is resumed with a plain resubscribe (streams.ts).
 */
export function v03StreamItems(res: Response, { decode, limits }: { decode: (sse: SseEvent) => unknown; limits: SseReadOptions }): AsyncIterable<StreamItem> {
  let final = false;
  const items = streamItems(
    res,
    (sse) => {
      const read = v03Event(decode(sse));
      final = read.final;
      return read.event;
    },
    limits,
  );
  return (async function* () {
    for await (const { event } of items) {
      yield { event };
      if (final) return;
    }
  })();
}
