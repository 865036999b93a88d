/** SIGN-03: the presence table is the descriptors' (no drift), and the rules it drives. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentCardSchema } from '../../src/gen/a2a_pb.js';
import { AGENT_CARD_PRESENCE } from '../../src/signing/cardPresence.js';
import { cardSigningPayload, canonicalCard } from '../../src/signing/cardPayload.js';
import { presenceTableFor } from '../../src/signing/presencePlan.js';

const base = {
  name: 'Agent',
  description: 'd',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};

test('src/signing/cardPresence.ts matches the descriptors (regenerate: npx tsx src/signing/presencePlan.ts --write)', () => {
  assert.deepEqual(AGENT_CARD_PRESENCE, presenceTableFor(AgentCardSchema));
});

test('explicitly set optional fields are kept, even false; other defaults go', () => {
  const payload = cardSigningPayload({ ...base, capabilities: { streaming: false, pushNotifications: true, extensions: [] } });
  assert.deepEqual(payload.capabilities, { streaming: false, pushNotifications: true });
  // documentationUrl is optional: "" was set, so it stays.
  assert.equal(cardSigningPayload({ ...base, documentationUrl: '' }).documentationUrl, '');
});

test('REQUIRED fields stay at their default value; implicit ones do not', () => {
  const payload = cardSigningPayload({
    ...base,
    description: '',
    skills: [{ id: 's', name: 'S', description: '', tags: [], examples: [], inputModes: [] }],
    supportedInterfaces: [{ url: 'https://a.example', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    securitySchemes: {},
    securityRequirements: [],
  });
  assert.equal(payload.description, '');
  assert.deepEqual(payload.skills, [{ id: 's', name: 'S', description: '', tags: [] }]);
  assert.deepEqual(payload.supportedInterfaces, [{ url: 'https://a.example', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  assert.equal('securitySchemes' in payload, false);
  assert.equal('securityRequirements' in payload, false);
});

test('every nesting level follows the rules: maps, oneofs, lists of messages, Struct kept as is', () => {
  const payload = cardSigningPayload({
    ...base,
    capabilities: { extensions: [{ uri: 'urn:x', description: '', required: false, params: { a: [], b: '' } }, { uri: 'urn:y', params: {} }] },
    securitySchemes: {
      key: { apiKeySecurityScheme: { description: '', location: 'header', name: 'X-Key' } },
      mtls: { mtlsSecurityScheme: {} },
      oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', refreshUrl: '', scopes: {} } }, oauth2MetadataUrl: '' } },
    },
    securityRequirements: [{ schemes: { key: { list: [] } } }],
    provider: { url: 'https://p', organization: 'P' },
    iconUrl: undefined,
  });
  assert.deepEqual(payload.capabilities, { extensions: [{ uri: 'urn:x', params: { a: [], b: '' } }, { uri: 'urn:y' }] });
  assert.deepEqual(payload.securitySchemes, {
    key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
    // A oneof member is set even when empty.
    mtls: { mtlsSecurityScheme: {} },
    // REQUIRED scopes stay even when empty.
    oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', scopes: {} } } } },
  });
  assert.deepEqual(payload.securityRequirements, [{ schemes: { key: {} } }]);
  assert.equal('iconUrl' in payload, false);
});

test('signatures and members outside the schema are not part of the payload; null is absent', () => {
  const card = { ...base, signatures: [{ protected: 'x', signature: 'y' }], url: 'https://legacy', documentationUrl: null };
  const payload = cardSigningPayload(card);
  assert.equal('signatures' in payload, false);
  assert.equal('url' in payload, false);
  assert.equal('documentationUrl' in payload, false);
  assert.equal(canonicalCard(card), canonicalCard(base));
});
