/** The test suites' SSE parser (test/support/sse.ts) against the WHATWG event-stream rules. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSse, readSse, SseParser } from '../support/sse.js';

describe('SSE parser', () => {
  test('single-line events with id, separated by blank lines', () => {
    const { events } = parseSse('id: 1\ndata: {"a":1}\n\nid: 2\ndata: {"a":2}\n\n');
    assert.deepEqual(
      events.map((e) => [e.id, e.data, e.type]),
      [
        ['1', '{"a":1}', 'message'],
        ['2', '{"a":2}', 'message'],
      ],
    );
  });

  test('multi-line data is joined with \\n; one leading space is removed, not more', () => {
    const { events } = parseSse('data: a\ndata:b\ndata:  c\ndata\n\n');
    assert.equal(events[0]?.data, 'a\nb\n c\n');
  });

  test('comments are collected, not dispatched; retry digits only; unknown fields ignored', () => {
    const { events, comments, retry } = parseSse(': keep-alive\n\n:x\nretry: 1000\nretry: soon\nfoo: bar\ndata: d\n\n');
    assert.deepEqual(comments, [' keep-alive', 'x']);
    assert.equal(retry, 1000);
    assert.deepEqual(events.map((e) => e.data), ['d']);
  });

  test('CRLF, CR and LF line endings, also split across chunks', () => {
    const parser = new SseParser();
    const out = [
      ...parser.feed('id: 7\r'),
      ...parser.feed('\ndata: x\r\n\r'),
      ...parser.feed('\ndata: y\r\rdata: z\n'),
      ...parser.feed('\n'),
      ...parser.end(),
    ];
    assert.deepEqual(
      out.map((e) => [e.id, e.data]),
      [
        ['7', 'x'],
        [undefined, 'y'],
        [undefined, 'z'],
      ],
    );
    assert.equal(out[2]?.lastEventId, '7', 'the last event id persists');
  });

  test('an event type, an empty data buffer, an id with NUL, a BOM, and an unterminated event at EOF', () => {
    const { events } = parseSse('\ufeffevent: update\ndata: 1\n\nevent: ignored\n\nid: a\u0000b\ndata: 2\n\ndata: lost');
    assert.deepEqual(
      events.map((e) => [e.type, e.data, e.id]),
      [
        ['update', '1', undefined],
        ['message', '2', undefined],
      ],
    );
  });

  test('readSse decodes UTF-8 split inside a code point', async () => {
    const bytes = new TextEncoder().encode('data: é😀\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const b of bytes) controller.enqueue(Uint8Array.of(b));
        controller.close();
      },
    });
    const events = [];
    for await (const e of readSse(body)) events.push(e.data);
    assert.deepEqual(events, ['é😀']);
  });
});
