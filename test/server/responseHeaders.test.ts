/**
 * Response headers of the HTTP bindings (BindingContext.headersFor): VER-07's A2A-Version on
 * every answer; without extensions one shared, frozen object per (content type, version), so
 * answers build no header object; with extensions (EXT-05) a fresh one echoing the activated ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BindingContext } from '../../src/bindings/bindingContext.js';
import type { A2ARequestHandler, CallContext } from '../../src/server/requestHandler.js';
import type { AgentCard } from '../../src/protocol/types.js';

const EXT = 'https://example.com/extensions/audit/v1';
const card = {
  name: 'a',
  description: 'a',
  version: '1',
  supportedInterfaces: [],
  capabilities: { extensions: [{ uri: EXT }] },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
} as unknown as AgentCard;
const binding = new BindingContext({
  handler: { agentCard: card } as unknown as A2ARequestHandler,
  limits: { maxBodyBytes: 1024, maxJsonDepth: 8, heartbeatMs: 1000 },
  supportedVersions: ['1.0'],
});
const JSON_BASE = { 'content-type': 'application/json' };
const ctx = (protocolVersion: string, requestedExtensions: string[] = []): CallContext => ({ protocolVersion, requestedExtensions });

test('VER-07: the answer carries content type and A2A-Version; one frozen object per version', () => {
  const first = binding.headersFor(JSON_BASE, ctx('1.0'));
  assert.deepEqual(first, { 'content-type': 'application/json', 'a2a-version': '1.0' });
  assert.equal(binding.headersFor(JSON_BASE, ctx('1.0')), first);
  assert.ok(Object.isFrozen(first));
  const v03 = binding.headersFor(JSON_BASE, ctx('0.3'));
  assert.deepEqual(v03, { 'content-type': 'application/json', 'a2a-version': '0.3' });
  assert.notEqual(v03, first);
  const other = binding.headersFor({ 'content-type': 'text/event-stream' }, ctx('1.0'));
  assert.equal(other['content-type'], 'text/event-stream');
});

test('EXT-05: with requested extensions the answer echoes the activated ones, in a fresh object', () => {
  const a = binding.headersFor(JSON_BASE, ctx('1.0', [EXT, 'https://example.com/unknown']));
  assert.deepEqual(a, { 'content-type': 'application/json', 'a2a-version': '1.0', 'a2a-extensions': EXT });
  assert.notEqual(binding.headersFor(JSON_BASE, ctx('1.0', [EXT])), a);
});
