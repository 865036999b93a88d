/**
 * The client's SSE parser (SSE-05): the WHATWG event stream rules, chunk boundaries anywhere,
 * and agreement with the reference parser of the test suite on random streams.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser, readSse, type SseEvent } from '../../src/client/sse.js';
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
