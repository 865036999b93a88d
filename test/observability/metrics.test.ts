/**
 * OBS-02: Prometheus metrics on the onCall hook, served by serveAgent({ metrics }) at GET
 * /metrics: text format 0.0.4 that parses, counters that move with the calls of every binding,
 * cumulative histogram buckets, gauges of open streams and agent runs, no tenant / task /
 * principal labels; the route exists only when enabled and counts against the rate limit.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { grpcBinding } from '../grpc/grpcTestBinding.js';
import { jsonRpcBinding, restBinding, type TestBinding } from '../support/bindings.js';
import { Counter, Histogram, renderFamilies } from '../../src/observability/prometheusText.js';

const message = (text: string) => ({ message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] } });

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A small parser of the text format: samples, and every HELP / TYPE line. */
function parse(text: string): { samples: Sample[]; types: Map<string, string>; helps: Set<string> } {
  assert.ok(text.endsWith('\n'), 'the exposition ends with a line feed');
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const helps = new Set<string>();
  for (const line of text.split('\n').slice(0, -1)) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') types.set(meta[2] as string, meta[3] as string);
      else helps.add(meta[2] as string);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `unparseable line ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const pairs = m[2] ?? '';
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/gy;
    let consumed = 0;
    for (let p = re.exec(pairs); p; p = re.exec(pairs)) {
      labels[p[1] as string] = (p[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      consumed = re.lastIndex;
    }
    assert.equal(consumed, pairs.length, `labels of ${line}`);
    samples.push({ name: m[1] as string, labels, value: m[3] === '+Inf' ? Infinity : Number(m[3]) });
  }
  return { samples, types, helps };
}

function value(samples: Sample[], name: string, labels: Record<string, string>): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.reduce((sum, s) => sum + s.value, 0);
}

async function scrape(agent: RunningAgent): Promise<{ text: string; contentType: string | null }> {
  const res = await fetch(`${agent.url}/metrics`);
  assert.equal(res.status, 200);
  return { text: await res.text(), contentType: res.headers.get('content-type') };
}

describe('OBS-02 /metrics', () => {
  let agent: RunningAgent;
  let bindings: TestBinding[];

  before(async () => {
    agent = await serveAgent({ agent: { card: demoCard(), executor: createDemoAgent({ slowMs: 20_000, tickMs: 50 }) }, port: 0, grpc: { port: 0 }, metrics: true });
    const card = agent.agentCard;
    const url = (b: string) => card.supportedInterfaces.find((i) => i.protocolBinding === b)?.url as string;
    bindings = [jsonRpcBinding(url('JSONRPC')), restBinding(url('HTTP+JSON')), grpcBinding(url('GRPC'))];
  });
  after(() => agent.close());

  test('the exposition parses, names every family with HELP and TYPE, and is served as text 0.0.4', async () => {
    const { text, contentType } = await scrape(agent);
    assert.equal(contentType, 'text/plain; version=0.0.4; charset=utf-8');
    const { types, helps } = parse(text);
    assert.deepEqual(Object.fromEntries(types), {
      a2a_calls_total: 'counter',
      a2a_call_duration_seconds: 'histogram',
      a2a_streams_open: 'gauge',
      a2a_stream_events_total: 'counter',
      a2a_task_runs_active: 'gauge',
      a2a_push_deliveries_total: 'counter',
    });
    assert.deepEqual([...helps].sort(), [...types.keys()].sort());
  });

  test('counters move with the calls of every binding; no tenant, task or principal label', async () => {
    for (const binding of bindings) {
      assert.equal((await binding.call('sendMessage', message('hi'))).ok, true);
      assert.equal((await binding.call('getTask', { id: 'missing' })).ok, false);
      assert.equal((await binding.stream('sendStreamingMessage', message('stream a'))).ok, true);
    }
    await new Promise((r) => setTimeout(r, 100));
    const { samples } = parse((await scrape(agent)).text);
    for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
      assert.equal(value(samples, 'a2a_calls_total', { binding, operation: 'sendMessage', outcome: 'ok' }), 1, binding);
      assert.equal(value(samples, 'a2a_calls_total', { binding, operation: 'getTask', outcome: 'TASK_NOT_FOUND' }), 1, binding);
      assert.equal(value(samples, 'a2a_calls_total', { binding, operation: 'sendStreamingMessage', outcome: 'ok' }), 1, binding);
      assert.ok(value(samples, 'a2a_stream_events_total', { binding }) >= 3, binding);
      assert.equal(value(samples, 'a2a_call_duration_seconds_count', { binding, operation: 'sendMessage' }), 1, binding);
      assert.equal(value(samples, 'a2a_streams_open', { binding }), 0, binding);
    }
    const labelNames = new Set(samples.flatMap((s) => Object.keys(s.labels)));
    for (const forbidden of ['tenant', 'task_id', 'taskId', 'principal']) assert.equal(labelNames.has(forbidden), false, forbidden);
  });

  test('histogram buckets are cumulative, +Inf equals _count, _sum is the total', async () => {
    const { samples } = parse((await scrape(agent)).text);
    const series = samples.filter((s) => s.name === 'a2a_call_duration_seconds_bucket' && s.labels.binding === 'JSONRPC' && s.labels.operation === 'getTask');
    assert.ok(series.length >= 2);
    const bounds = series.map((s) => Number(s.labels.le === '+Inf' ? Infinity : s.labels.le));
    assert.deepEqual(bounds, [...bounds].sort((a, b) => a - b));
    assert.equal(bounds.at(-1), Infinity);
    assert.equal(bounds[0], 0.001);
    for (let i = 1; i < series.length; i++) assert.ok((series[i] as Sample).value >= (series[i - 1] as Sample).value);
    assert.equal((series.at(-1) as Sample).value, value(samples, 'a2a_call_duration_seconds_count', { binding: 'JSONRPC', operation: 'getTask' }));
    assert.ok(value(samples, 'a2a_call_duration_seconds_sum', { binding: 'JSONRPC', operation: 'getTask' }) > 0);
  });

  test('gauges: an open stream and its agent run while the agent works', async () => {
    const controller = new AbortController();
    const res = await fetch(`${agent.baseUrl}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify(message('slow work')),
      signal: controller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const during = parse((await scrape(agent)).text).samples;
    assert.equal(value(during, 'a2a_streams_open', { binding: 'HTTP+JSON' }), 1);
    assert.equal(value(during, 'a2a_task_runs_active', {}), 1);
    controller.abort();
    await reader.cancel().catch(() => undefined);
    let open = 1;
    for (let i = 0; i < 50 && open !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      open = value(parse((await scrape(agent)).text).samples, 'a2a_streams_open', { binding: 'HTTP+JSON' });
    }
    assert.equal(open, 0);
  });
});

test('OBS-02 /metrics is served only when enabled', async (t) => {
  const agent = await serveAgent({ agent: { card: demoCard(), executor: createDemoAgent() }, port: 0 });
  t.after(() => agent.close());
  assert.equal(agent.metrics, undefined);
  assert.equal((await fetch(`${agent.url}/metrics`)).status, 404);
});

test('OBS-02 R25 /metrics at its own path is not counted against the per-address rate limit, and answers while the address has spent it', async (t) => {
  const agent = await serveAgent({
    agent: { card: demoCard(), executor: createDemoAgent() },
    port: 0,
    metrics: { path: '/internal/metrics' },
    handler: { abuseLimits: { requestsPerSecond: 1 } },
  });
  t.after(() => agent.close());
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await fetch(`${agent.url}/internal/metrics`)).status);
  assert.deepEqual(statuses, Array(6).fill(200));
  const spent: number[] = [];
  for (let i = 0; i < 4; i++) spent.push((await fetch(`${agent.url}/a2a/rest/tasks/nope`, { headers: { 'a2a-version': '1.0' } })).status);
  assert.ok(spent.includes(429), `A2A calls ${spent.join(',')}`);
  assert.equal((await fetch(`${agent.url}/internal/metrics`)).status, 200);
});

test('OBS-02 text format: label values escaped, HELP escaped, buckets cumulative', () => {
  const counter = new Counter('x_total', 'a \\ help\nline', ['k']);
  counter.inc(['a"b\\c\nd'], 2);
  const histogram = new Histogram('h_seconds', 'h', { labelNames: [], buckets: [0.1, 1] });
  histogram.observe([], 0.05);
  histogram.observe([], 0.5);
  histogram.observe([], 5);
  assert.equal(
    renderFamilies([counter, histogram]),
    [
      '# HELP x_total a \\\\ help\\nline',
      '# TYPE x_total counter',
      'x_total{k="a\\"b\\\\c\\nd"} 2',
      '# HELP h_seconds h',
      '# TYPE h_seconds histogram',
      'h_seconds_bucket{le="0.1"} 1',
      'h_seconds_bucket{le="1"} 2',
      'h_seconds_bucket{le="+Inf"} 3',
      'h_seconds_sum 5.55',
      'h_seconds_count 3',
      '',
    ].join('\n'),
  );
});
