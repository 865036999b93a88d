/** Raw JSON-RPC helpers for envelope tests (R19): sending arbitrary bodies and checking answers. */
import { ERROR_TABLE } from '../../src/protocol/errorTable.js';
import type { A2AHandler } from '../../src/server/createA2AHandler.js';
import type { HttpRequest } from '../../src/server/http/httpTypes.js';
import { parseSse } from './sse.js';

/** Every JSON-RPC code the server may use. */
export const KNOWN_CODES: ReadonlySet<number> = new Set(Object.values(ERROR_TABLE).map((r) => r.jsonRpcCode));

export interface RawAnswer {
  status: number;
  contentType: string;
  headers: Headers | Record<string, string>;
  /** Parsed JSON body (undefined for SSE or non-JSON). */
  json?: unknown;
  /** The data payloads of an SSE answer, parsed. */
  events?: unknown[];
  text: string;
}

export async function rawRpc(url: string, body: string | undefined, init: { method?: string; headers?: Record<string, string> } = {}): Promise<RawAnswer> {
  const res = await fetch(url, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...init.headers },
    ...(body !== undefined ? { body } : {}),
  });
  return toAnswer(res.status, res.headers.get('content-type') ?? '', res.headers, await res.text());
}

/** Calls the handler directly (no socket), for bulk fuzzing. */
export async function inProcessRpc(handler: A2AHandler, path: string, body: string): Promise<RawAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  const req: HttpRequest = {
    method: 'POST',
    path,
    query: new URLSearchParams(),
    header: (name) => headers[name],
    text: async () => body,
    signal: new AbortController().signal,
  };
  const res = await handler.handle(req);
  let text = '';
  if (typeof res.body === 'string') text = res.body;
  else if (res.body) for await (const chunk of res.body) text += chunk;
  return toAnswer(res.status, res.headers['content-type'] ?? '', res.headers, text);
}

function toAnswer(status: number, contentType: string, headers: RawAnswer['headers'], text: string): RawAnswer {
  const answer: RawAnswer = { status, contentType, headers, text };
  if (contentType.startsWith('text/event-stream')) {
    answer.events = parseSse(text).events.map((e) => JSON.parse(e.data));
  } else {
    try {
      answer.json = JSON.parse(text);
    } catch {
      // left undefined: the caller reports it
    }
  }
  return answer;
}

function depth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let max = 0;
  for (const v of Object.values(value)) max = Math.max(max, depth(v));
  return max + 1;
}

/**
 * The id a server must echo for this request text: the id when valid, else null (also for an
 * integer id beyond 2^53 - 1, RPC-09). Bodies nested deeper than `maxDepth` are refused before
 * parsing (R16), so their id is unknown: null.
 */
export function expectedId(text: string, maxDepth = 32): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || depth(parsed) > maxDepth) return null;
  const id = (parsed as Record<string, unknown>).id;
  if (typeof id === 'string') return id;
  // RPC-09: an integer beyond 2^53 - 1 may have been rounded by parsing; it is refused, not echoed.
  return typeof id === 'number' && Number.isFinite(id) && (!Number.isInteger(id) || Number.isSafeInteger(id)) ? id : null;
}

/** Describes what is wrong with one JSON-RPC response object, or undefined when well-formed. */
export function envelopeProblem(body: unknown, id: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'not a JSON object';
  const o = body as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return `jsonrpc is ${JSON.stringify(o.jsonrpc)}`;
  if (!Object.is(o.id, id) && o.id !== id) return `id ${JSON.stringify(o.id)} should be ${JSON.stringify(id)}`;
  if (('result' in o) === ('error' in o)) return 'needs exactly one of result and error';
  const extra = Object.keys(o).filter((k) => !['jsonrpc', 'id', 'result', 'error'].includes(k));
  if (extra.length > 0) return `unexpected members ${extra.join(',')}`;
  if ('error' in o) {
    const e = o.error as Record<string, unknown>;
    if (typeof e !== 'object' || e === null) return 'error is not an object';
    if (!Number.isInteger(e.code) || !KNOWN_CODES.has(e.code as number)) return `unknown error code ${JSON.stringify(e.code)}`;
    if (typeof e.message !== 'string') return 'error.message is not a string';
    if (e.data !== undefined) {
      if (!Array.isArray(e.data)) return 'error.data is not an array';
      if (!e.data.every((d) => typeof d === 'object' && d !== null && typeof (d as Record<string, unknown>)['@type'] === 'string')) {
        return 'error.data entries need @type';
      }
    }
  }
  return undefined;
}

/** Checks a whole answer (JSON or SSE): HTTP 200 and every envelope well-formed. */
export function answerProblem(answer: RawAnswer, id: unknown): string | undefined {
  if (answer.status !== 200) return `HTTP ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (answer.events) {
    if (answer.events.length === 0) return 'empty event stream';
    for (const e of answer.events) {
      const p = envelopeProblem(e, id);
      if (p) return `SSE event: ${p}`;
    }
    return undefined;
  }
  if (!answer.contentType.startsWith('application/json')) return `content-type ${answer.contentType}`;
  if (answer.json === undefined) return `body is not JSON: ${answer.text.slice(0, 300)}`;
  return envelopeProblem(answer.json, id);
}
