/**
 * PUSH-SECRETS: push.signingSecrets are checked when the push runtime is created. A secret that
 * is not a `whsec_` secret (an empty string from an unset environment variable) used to start
 * fine and dead-letter every delivery; now construction throws, naming the index, never the value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDemoAgent, demoCard } from '../../src/cli/agents/demo.js';
import { withInterfaces } from '../../src/server/agentDefinition.js';
import { createA2AHandler, DEFAULT_JSONRPC_PATH, DEFAULT_REST_PATH } from '../../src/server/createA2AHandler.js';
import { generateWebhookSecret } from '../../src/push/webhookSignature.js';
import { TEST_PUSH } from '../support/server.js';

const card = withInterfaces(demoCard(), { httpBaseUrl: 'http://127.0.0.1:1', jsonRpcPath: DEFAULT_JSONRPC_PATH, restPath: DEFAULT_REST_PATH });
const handlerWith = (signingSecrets: string[]) =>
  createA2AHandler({ agentCard: card, executor: createDemoAgent(), push: { ...TEST_PUSH, deliver: false, signingSecrets } });

test('PUSH-SECRETS: a signing secret that is not whsec_ is refused at construction, by index, without its value', () => {
  assert.equal(demoCard().capabilities.pushNotifications, true, 'the demo card declares push');
  assert.throws(() => handlerWith(['']), /^Error: push\.signingSecrets\[0\] does not start with whsec_/);
  const secret = 'whsec_bm90LWEtdmFsaWQta2V5';
  assert.throws(
    () => handlerWith([generateWebhookSecret(), secret]),
    (e: Error) => /^push\.signingSecrets\[1\] decodes to \d+ bytes/.test(e.message) && !e.message.includes(secret),
  );
  // Good secrets (one, or two during a rotation) and none at all are accepted.
  handlerWith([generateWebhookSecret(), generateWebhookSecret()]);
  handlerWith([]);
});
