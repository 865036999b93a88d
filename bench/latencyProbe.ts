/**
 * Latency without load: `count` requests one after another on one keep-alive connection, timed
 * with the high-resolution clock (autocannon reports whole milliseconds, too coarse for a store
 * lookup). What a single caller waits when the server is not saturated; the loaded rows measure
 * queueing at 64 connections on top of it.
 */
export interface LatencyProbe {
  url: string;
  headers: Record<string, string>;
  body: () => string;
  /** Every answer must pass this, or the probe fails. */
  verify: (body: string) => boolean;
  count: number;
  /** Untimed requests first (JIT, connection), default 200. */
  warmup?: number;
}

export interface Latency {
  p50: number;
  p99: number;
  count: number;
}

export async function probeLatency(probe: LatencyProbe): Promise<Latency> {
  const times: number[] = [];
  const warmup = probe.warmup ?? 200;
  for (let i = 0; i < warmup + probe.count; i++) {
    const start = performance.now();
    const res = await fetch(probe.url, { method: 'POST', headers: probe.headers, body: probe.body() });
    const text = await res.text();
    if (i >= warmup) times.push(performance.now() - start);
    if (!res.ok || !probe.verify(text)) throw new Error(`latency probe: unexpected answer ${res.status} ${text.slice(0, 200)}`);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] as number;
  return { p50: at(0.5), p99: at(0.99), count: times.length };
}
