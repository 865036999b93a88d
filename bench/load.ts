/**
 * Load generators: autocannon for request/response rows and for SSE streams (a stream is one
 * response read to its end), a closed loop helper for the gRPC client.
 */
import autocannon from 'autocannon';

export interface Measurement {
  /** Requests per second (for the SSE row: events per second). */
  rps: number;
  p50: number;
  p99: number;
  /** Completed requests (SSE: completed streams). */
  count: number;
  /** Responses with a non-2xx status (SSE: streams not answered 200). */
  non2xx: number;
  /** Connection errors + timeouts + 2xx bodies that failed verification (SSE: short or erroring streams). */
  errors: number;
  /** CPU share the server process used during the measurement (1 = one core), when known. */
  cpu?: number;
  /** CPU share used meanwhile by everything but the load generator and the server under test. */
  foreignCpu?: number;
  /** Free-form extra figures (SSE: streams/s). */
  extra?: Record<string, number>;
}

export interface HttpLoad {
  url: string;
  headers: Record<string, string>;
  /** May contain `[<id>]`, replaced by a unique id per request. */
  body: string;
  connections: number;
  duration: number;
  /** A cheap check on every response body (runs in the load generator, so keep it a substring test). */
  verify: (body: string) => boolean;
  /** A fresh body per request instead of `body` (e.g. a random task id). */
  nextBody?: () => string;
}

export async function runHttp(load: HttpLoad): Promise<Measurement> {
  const result = await autocannon({
    url: load.url,
    method: 'POST',
    headers: load.headers,
    body: load.body,
    idReplacement: load.body.includes('[<id>]'),
    connections: load.connections,
    duration: load.duration,
    verifyBody: load.verify,
    ...(load.nextBody ? { requests: [{ setupRequest: (req: { body?: string }) => ({ ...req, body: load.nextBody!() }) }] } : {}),
  });
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    count: result.requests.total,
    non2xx: result.non2xx,
    // autocannon also counts non-2xx bodies as mismatches; count each bad response once.
    errors: result.errors + result.timeouts + Math.max(0, result.mismatches - result.non2xx),
  };
}

export interface SseLoad {
  url: string;
  headers: Record<string, string>;
  /** The request body; may contain `[<id>]`, replaced by a unique id per stream. */
  body: string;
  concurrency: number;
  duration: number;
  /** Events every stream must deliver; a shorter or erroring stream counts as an error. */
  expectedEvents: number;
  /** Substring the last event must contain. */
  lastEventMarker: string;
}

/** Cheap check of a whole SSE body: exactly `expected` `data:` lines, the marker in the last, no error. */
export function sseBodyOk(body: string, expected: number, marker: string): boolean {
  let count = 0;
  let last = -1;
  for (let at = body.indexOf('data:'); at >= 0; at = body.indexOf('data:', at + 5)) {
    count++;
    last = at;
  }
  return count === expected && body.includes(marker, last) && !body.includes('"error"');
}

export interface SseResult {
  status: number;
  /** The `data:` payload of each event. */
  events: string[];
  /** Each event block as sent (with `id:` lines), for replaying it from the ceiling server. */
  raw: string[];
}

/** One SSE request read to the end. */
export async function readSse(url: string, headers: Record<string, string>, body: string, keepRaw = false): Promise<SseResult> {
  const res = await fetch(url, { method: 'POST', headers, body });
  const events: string[] = [];
  const raw: string[] = [];
  if (!res.body) return { status: res.status, events, raw };
  const decoder = new TextDecoder();
  let buffer = ''; // both servers frame events with \n\n (no CRLF handling needed)
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) events.push(data);
      if (keepRaw && data) raw.push(`${block}\n\n`);
    }
  }
  return { status: res.status, events, raw };
}

/** What one call of a closed loop reports: events received, and whether the answer was wrong. */
export interface CallOutcome {
  events: number;
  bad?: boolean;
  non2xx?: boolean;
}

/**
 * A closed loop: `concurrency` workers each issue `call` back to back until `duration` seconds
 * have passed. Rate is events/s; latency is per call; a thrown call counts as an error.
 */
export async function closedLoop(load: { concurrency: number; duration: number; call: () => Promise<CallOutcome> }): Promise<Measurement & { seconds: number }> {
  const deadline = performance.now() + load.duration * 1000;
  const latencies: number[] = [];
  let events = 0;
  let errors = 0;
  let non2xx = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const start = performance.now();
      try {
        const outcome = await load.call();
        events += outcome.events;
        if (outcome.non2xx) non2xx++;
        if (outcome.bad) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - start);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: load.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((x, y) => x - y);
  const pct = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor((q / 100) * latencies.length))] ?? 0;
  return { rps: events / seconds, p50: pct(50), p99: pct(99), count: latencies.length, non2xx, errors, seconds };
}

/**
 * Keeps `concurrency` streams open back to back for `duration` seconds (autocannon, one
 * connection per stream, each stream read to its end); rate is events/s, latency per stream.
 * A stream with the wrong number of events, no marker in its last one or an error counts as an error.
 */
export async function runSse(load: SseLoad): Promise<Measurement> {
  const m = await runHttp({
    url: load.url,
    headers: load.headers,
    body: load.body,
    connections: load.concurrency,
    duration: load.duration,
    verify: (body) => sseBodyOk(body, load.expectedEvents, load.lastEventMarker),
  });
  return { ...m, rps: m.rps * load.expectedEvents, extra: { streamsPerSec: m.rps } };
}
