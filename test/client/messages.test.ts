/** Message helpers: parts from text, data and files; fresh ids; base64 without Buffer. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytesToBase64, createMessage, dataPart, filePart, textPart } from '../../src/client/index.js';

test('createMessage: a ROLE_USER message with a fresh UUID per call', () => {
  const a = createMessage('hi');
  const b = createMessage('hi');
  assert.deepEqual({ ...a, messageId: '' }, { messageId: '', role: 'ROLE_USER', parts: [{ text: 'hi' }] });
  assert.match(a.messageId, /^[0-9a-f-]{36}$/);
  assert.notEqual(a.messageId, b.messageId);
});

test('createMessage: text, data (null included), files, extra parts and message fields in order', () => {
  const m = createMessage({
    text: 'see attached',
    data: null,
    file: [{ bytes: 'AAEC', name: 'b.bin' }, { url: 'https://example.com/x.pdf', name: 'x.pdf', mediaType: 'application/pdf' }],
    parts: [textPart('end')],
    taskId: 't',
    contextId: 'c',
    messageId: 'm-1',
    referenceTaskIds: ['t0'],
    extensions: ['urn:e'],
    metadata: { k: 'v' },
  });
  assert.deepEqual(m, {
    messageId: 'm-1',
    role: 'ROLE_USER',
    parts: [{ text: 'see attached' }, { data: null }, { raw: 'AAEC', filename: 'b.bin' }, { url: 'https://example.com/x.pdf', filename: 'x.pdf', mediaType: 'application/pdf' }, { text: 'end' }],
    taskId: 't',
    contextId: 'c',
    metadata: { k: 'v' },
    referenceTaskIds: ['t0'],
    extensions: ['urn:e'],
  });
});

test('bytesToBase64 matches the standard encoding, also for large inputs', () => {
  const bytes = new Uint8Array(200_000).map((_, i) => (i * 7) % 256);
  assert.equal(bytesToBase64(bytes), Buffer.from(bytes).toString('base64'));
  assert.equal(bytesToBase64(new Uint8Array()), '');
  assert.deepEqual(filePart({ bytes: new Uint8Array([255, 0]), mediaType: 'application/octet-stream' }), { raw: '/wA=', mediaType: 'application/octet-stream' });
  assert.deepEqual(dataPart({ a: 1 }, 'application/json'), { data: { a: 1 }, mediaType: 'application/json' });
});
