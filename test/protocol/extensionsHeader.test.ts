/**
 * EXT-02 / EXT-08: the requested-extensions header (or gRPC metadata) is untrusted input. Parsed
 * URIs are trimmed, de-duplicated and capped; the parse is linear in the header's length (it was
 * quadratic: 11,000 unique entries in gRPC metadata, which has no 16 KB header cap, blocked the
 * event loop ~0.3 s per call, before authentication).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_REQUESTED_EXTENSIONS, parseExtensions, requestedExtensions } from '../../src/protocol/serviceParams.js';

test('EXT-02 comma-separated URIs: trimmed, empties and repeats ignored, order kept', () => {
  assert.deepEqual(parseExtensions(' https://a/v1 ,,https://b/v1,\thttps://a/v1 , '), ['https://a/v1', 'https://b/v1']);
  assert.deepEqual(parseExtensions(''), []);
  assert.deepEqual(parseExtensions(undefined), []);
  assert.deepEqual(requestedExtensions('0.3', (n) => (n === 'x-a2a-extensions' ? 'https://x' : 'https://y,https://x')), ['https://x', 'https://y']);
});

test(`EXT-08 at most ${MAX_REQUESTED_EXTENSIONS} distinct URIs are read from one request, however many are sent`, () => {
  const many = Array.from({ length: 20_000 }, (_, i) => `https://ext.example/e${i}`).join(',');
  const parsed = parseExtensions(many);
  assert.equal(parsed.length, MAX_REQUESTED_EXTENSIONS);
  assert.equal(parsed[0], 'https://ext.example/e0');
  // Repeats do not use up the allowance.
  const repeated = `${Array.from({ length: 1000 }, () => 'https://r').join(',')},https://last`;
  assert.deepEqual(parseExtensions(repeated), ['https://r', 'https://last']);
});
