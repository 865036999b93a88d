/**
 * The client's SSE parser (SSE-05): the WHATWG event stream rules, chunk boundaries anywhere,
 * and agreement with the reference parser of the test suite on random streams.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClientError, createClient } from '../../src/client/index.js';
import { DEFAULT_MAX_EVENT_SIZE, SseParser, readSse, type SseEvent } from '../../src/client/sse.js';
import { SseParser as ReferenceParser } from '../support/sse.js';

function parse(text: string, chunkSizes?: number[]): SseEvent[] {
  const parser = new SseParser();
  const out: SseEvent[] = [];
  if (!chunkSizes) return [...parser.push(text), ...parser.end()];
  let at = 0;
  for (let i = 0; at < text.length; i++) {
    const size = chunkSizes[i % chunkSizes.length] as number;
    out.push(...parser.push(text.slice(at, at + size)));
    at += size;
  }
  return [...out, ...parser.end()];
}

test('multi-line data joined with \\n; comments ignored; one leading space removed', () => {
  assert.deepEqual(parse(': keep-alive\n\ndata: {"a":\ndata:  1}\ndata\n\n'), [{ data: '{"a":\n 1}\n', event: 'message', id: '' }]);
});

test('CRLF, LF and CR line ends, also split across chunks', () => {
  const text = 'data: one\r\n\r\ndata: two\n\ndata: three\r\rdata: four\r\n\r\n';
  const expected = ['one', 'two', 'three', 'four'];
  for (const sizes of [undefined, [1], [2, 3], [7]]) {
    assert.deepEqual(parse(text, sizes).map((e) => e.data), expected, `chunks ${JSON.stringify(sizes)}`);
  }
});

test('event types, ids that persist, NUL ids ignored, retry', () => {
  const parser = new SseParser();
  const events = parser.push('event: error\nid: 7\ndata: x\n\ndata: y\n\nid: a\0b\ndata: z\n\nid\ndata: w\n\nretry: 1000\nretry: x\n\n');
  assert.deepEqual(events, [
    { data: 'x', event: 'error', id: '7' },
    { data: 'y', event: 'message', id: '7' },
    { data: 'z', event: 'message', id: '7' },
    { data: 'w', event: 'message', id: '' },
  ]);
  assert.equal(parser.retry, 1000);
});

test('a BOM is dropped; an unterminated event at the end is discarded; empty data still dispatches', () => {
  assert.deepEqual(parse('\ufeffdata: a\n\ndata: cut'), [{ data: 'a', event: 'message', id: '' }]);
  assert.deepEqual(parse('data\n\nevent: nothing\n\n'), [{ data: '', event: 'message', id: '' }]);
  assert.deepEqual(parse('data: last\r'), [], 'a trailing CR ends the line but not the event');
});

test('readSse decodes UTF-8 split across chunks', async () => {
  const bytes = new TextEncoder().encode('data: héllo wörld ✓\n\n');
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const b of bytes) controller.enqueue(new Uint8Array([b]));
      controller.close();
    },
  });
  const events: SseEvent[] = [];
  for await (const e of readSse(body)) events.push(e);
  assert.deepEqual(events, [{ data: 'héllo wörld ✓', event: 'message', id: '' }]);
});

test('agrees with the reference parser on random streams and random chunking', () => {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pieces = ['data', 'data:', 'data: ', 'event: e', 'id: 1', 'id: 22', 'retry: 5', ':c', 'x', ' ', '\n', '\r', '\r\n', '{"k":1}', 'é', '\ufeff'];
  for (let round = 0; round < 500; round++) {
    let text = '';
    const n = 1 + Math.floor(random() * 40);
    for (let i = 0; i < n; i++) text += pieces[Math.floor(random() * pieces.length)];
    const sizes = Array.from({ length: 5 }, () => 1 + Math.floor(random() * 8));
    const reference = new ReferenceParser();
    let at = 0;
    const expected = [];
    for (let i = 0; at < text.length; i++) {
      const size = sizes[i % sizes.length] as number;
      expected.push(...reference.feed(text.slice(at, at + size)));
      at += size;
    }
    expected.push(...reference.end());
    assert.deepEqual(
      parse(text, sizes),
      expected.map((e) => ({ data: e.data, event: e.type, id: e.lastEventId })),
      JSON.stringify(text),
    );
  }
});

test('SSE-05 every split of a stream into two and three chunks parses as the whole (CRLF split, multi-line data, comments)', () => {
  const text = ': hb\r\ndata: {"a":\r\ndata:  1}\r\n\r\nevent: e\rid: 7\rdata: x\r\r:c\n\ndata: y\r\n\r\n';
  const whole = parse(text);
  assert.equal(whole.length, 3);
  for (let i = 0; i <= text.length; i++) {
    assert.deepEqual(parse(text, [i || 1, text.length]), whole, `split at ${i}`);
    for (let j = 1; j <= 4; j++) assert.deepEqual(parse(text, [i || 1, j, text.length]), whole, `split at ${i} and ${i + j}`);
  }
});

test('SSE-05 a 16 MB event in 16 KiB chunks: every character is examined once (linear, not quadratic)', () => {
  const payload = 'A'.repeat(16 * 1024 * 1024 - 64);
  const text = `id: 1\ndata: {"raw":"${payload}"}\n\n`;
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (let at = 0; at < text.length; at += 16 * 1024) events.push(...parser.push(text.slice(at, at + 16 * 1024)));
  assert.equal(events.length, 1);
  assert.equal(events[0]?.data.length, payload.length + 10);
  assert.equal(parser.scanned, text.length);
});

test('SSE-05 an event over maxEventSize fails with INVALID_RESPONSE naming the limit, also before its line ends', () => {
  const tooBig = (push: (p: SseParser) => void) => {
    const parser = new SseParser({ maxEventSize: 100 });
    assert.throws(
      () => push(parser),
      (e: unknown) => A2AClientError.is(e, 'INVALID_RESPONSE') && /limit of 100 characters \(maxEventSize\)/.test(e.message),
    );
  };
  tooBig((p) => p.push(`data: ${'x'.repeat(60)}\ndata: ${'x'.repeat(60)}\n`));
  tooBig((p) => {
    for (let i = 0; i < 20; i++) p.push('x'.repeat(10));
  });
  const parser = new SseParser({ maxEventSize: 100 });
  assert.equal(parser.push(`data: ${'x'.repeat(80)}\n\ndata: ${'y'.repeat(80)}\n\n`).length, 2, 'the limit is per event');
  assert.equal(DEFAULT_MAX_EVENT_SIZE, 16 * 1024 * 1024);
});

test('SSE-05 ClientOptions.maxEventSize reaches the transports (1.0 and 0.3)', async () => {
  for (const protocolVersion of ['1.0', '0.3']) {
    const big = JSON.stringify({ result: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }, jsonrpc: '2.0', id: 1, pad: 'p'.repeat(500) });
    const fetch = async () => new Response(`data: ${big}\n\n`, { headers: { 'content-type': 'text/event-stream' } });
    const card = {
      name: 'a',
      description: 'a',
      version: '1',
      capabilities: { streaming: true },
      supportedInterfaces: [{ url: 'http://agent.invalid/rpc', protocolBinding: 'JSONRPC', protocolVersion }],
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    };
    const client = await createClient(card, { fetch, maxEventSize: 200, resume: false });
    await assert.rejects(
      async () => {
        for await (const _ of client.streamText('hi')) void _;
      },
      (e: unknown) => A2AClientError.is(e, 'INVALID_RESPONSE') && /maxEventSize/.test(e.message),
      protocolVersion,
    );
  }
});
