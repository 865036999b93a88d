/** PUSH-11: push tokens and credentials sealed at rest with a configured key. */
import { A2AError } from '../../src/protocol/errors.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { CredentialBox } from '../../src/push/credentialBox.js';

const config = { id: 'c1', taskId: 't1', url: 'https://hooks.example.com/a2a', token: 'tok-123', authentication: { scheme: 'Bearer', credentials: 'secret-xyz' } };

test('PUSH-11 with a key, token and credentials are sealed and open again', () => {
  for (const key of [randomBytes(32).toString('base64'), randomBytes(32).toString('hex'), 'a long passphrase']) {
    const box = new CredentialBox(key);
    const sealed = box.seal(config);
    assert.equal(sealed.url, config.url);
    assert.equal(sealed.authentication?.scheme, 'Bearer');
    assert.doesNotMatch(JSON.stringify(sealed), /tok-123|secret-xyz/);
    assert.match(sealed.token ?? '', /^enc:v1:/);
    assert.deepEqual(box.open(sealed), config);
    assert.notEqual(box.seal(config).token, sealed.token, 'a fresh IV every time');
  }
});

test('PUSH-11 without a key values are stored as given', () => {
  const box = new CredentialBox();
  assert.equal(box.seal(config), config);
  assert.equal(box.open(config), config);
});

test('PUSH-11 a wrong or missing key fails clearly, without the secret in the message', () => {
  const sealed = new CredentialBox('key one').seal(config);
  assert.throws(() => new CredentialBox('key two').open(sealed), (e: Error) => /could not be decrypted/.test(e.message) && !/tok-123|secret-xyz/.test(e.message));
  assert.throws(() => new CredentialBox().open(sealed), /no push credential key \(--push-key\) is configured/);
  // An A2A InternalError, so a Get or List of the config answers with this message, not a bare 'Internal error'.
  assert.throws(() => new CredentialBox('key two').open(sealed), (e: unknown) => A2AError.is(e) && e.reason === 'INTERNAL');
});
