/**
 * Standard Webhooks signatures (signWebhook / verifyWebhook), the spec's published vector
 * included, and readDelivery: the receiver's verify-then-decode of an A2A push notification.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateWebhookSecret, signWebhook, verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from '../../src/push/webhookSignature.js';
import { authorizationMatches, readDelivery, tokenMatches, WebhookDeliveryError } from '../../src/webhooks/index.js';

// The test vector published with the Standard Webhooks specification.
const SPEC = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const NOW = 1_700_000_000;
const OLD = generateWebhookSecret();
const NEW = generateWebhookSecret();

function headersFor(input: { id: string; timestamp: number; signature: string }): Record<string, string> {
  return { 'webhook-id': input.id, 'webhook-timestamp': String(input.timestamp), 'webhook-signature': input.signature };
}

function signed(input: { id?: string; timestamp?: number; body: string; secrets: string[] }) {
  const id = input.id ?? 'task-1.1';
  const timestamp = input.timestamp ?? NOW;
  return { headers: headersFor({ id, timestamp, signature: signWebhook({ id, timestamp, body: input.body, secrets: input.secrets }) }), body: input.body };
}

function rejects(fn: () => unknown, reason: WebhookVerificationReason): WebhookVerificationError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof WebhookVerificationError, `expected WebhookVerificationError(${reason}), got ${String(caught)}`);
  assert.equal(caught.reason, reason, caught.message);
  return caught;
}

describe('signWebhook / verifyWebhook', () => {
  test('the Standard Webhooks test vector: signing gives the published signature, which verifies', () => {
    assert.equal(signWebhook({ id: SPEC.id, timestamp: SPEC.timestamp, body: SPEC.body, secrets: [SPEC.secret] }), SPEC.signature);
    const result = verifyWebhook({
      headers: headersFor({ id: SPEC.id, timestamp: SPEC.timestamp, signature: SPEC.signature }),
      body: SPEC.body,
      secrets: [SPEC.secret],
      now: SPEC.timestamp + 10,
    });
    assert.deepEqual(result, { id: SPEC.id, timestamp: SPEC.timestamp });
  });

  test('a valid delivery verifies; the body may be bytes; headers may be a Headers object or any case', () => {
    const body = JSON.stringify({ statusUpdate: { taskId: 'task-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
    const { headers } = signed({ body, secrets: [NEW] });
    assert.deepEqual(verifyWebhook({ headers, body, secrets: [NEW], now: NOW }), { id: 'task-1.1', timestamp: NOW });
    assert.deepEqual(verifyWebhook({ headers, body: new TextEncoder().encode(body), secrets: [NEW], now: NOW }).id, 'task-1.1');
    assert.deepEqual(verifyWebhook({ headers: new Headers(headers), body, secrets: [NEW], now: NOW }).id, 'task-1.1');
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    assert.deepEqual(verifyWebhook({ headers: upper, body, secrets: [NEW], now: NOW }).id, 'task-1.1');
  });

  test('a tampered body, id or timestamp does not verify', () => {
    const { headers, body } = signed({ body: '{"a":1}', secrets: [NEW] });
    rejects(() => verifyWebhook({ headers, body: '{"a":2}', secrets: [NEW], now: NOW }), 'bad-signature');
    rejects(() => verifyWebhook({ headers, body: '{"a":1} ', secrets: [NEW], now: NOW }), 'bad-signature');
    rejects(() => verifyWebhook({ headers: { ...headers, 'webhook-id': 'task-1.2' }, body, secrets: [NEW], now: NOW }), 'bad-signature');
    rejects(() => verifyWebhook({ headers: { ...headers, 'webhook-timestamp': String(NOW + 1) }, body, secrets: [NEW], now: NOW }), 'bad-signature');
  });

  test('stale and future timestamps are refused beyond the tolerance (default 300 s), accepted within', () => {
    const { headers, body } = signed({ body: '{}', secrets: [NEW] });
    assert.ok(verifyWebhook({ headers, body, secrets: [NEW], now: NOW + 300 }));
    assert.ok(verifyWebhook({ headers, body, secrets: [NEW], now: NOW - 300 }));
    assert.match(rejects(() => verifyWebhook({ headers, body, secrets: [NEW], now: NOW + 301 }), 'stale').message, /301 s old/);
    assert.match(rejects(() => verifyWebhook({ headers, body, secrets: [NEW], now: NOW - 301 }), 'stale').message, /301 s in the future/);
    rejects(() => verifyWebhook({ headers, body, secrets: [NEW], now: NOW + 61, toleranceSeconds: 60 }), 'stale');
    // Stale is checked before the signature: a replayed old delivery says "stale", not "bad".
    rejects(() => verifyWebhook({ headers, body: 'tampered', secrets: [NEW], now: NOW + 3600 }), 'stale');
  });

  test('a different secret does not verify', () => {
    const { headers, body } = signed({ body: '{}', secrets: [OLD] });
    rejects(() => verifyWebhook({ headers, body, secrets: [NEW], now: NOW }), 'bad-signature');
  });

  test('rotation: signed with [old, new], verified with [new] or [old]; signed with [new], verified with [old, new]', () => {
    const both = signed({ body: '{}', secrets: [OLD, NEW] });
    assert.equal(both.headers['webhook-signature']?.split(' ').length, 2);
    assert.ok(verifyWebhook({ ...both, secrets: [NEW], now: NOW }));
    assert.ok(verifyWebhook({ ...both, secrets: [OLD], now: NOW }));
    const fresh = signed({ body: '{}', secrets: [NEW] });
    assert.ok(verifyWebhook({ ...fresh, secrets: [OLD, NEW], now: NOW }));
    rejects(() => verifyWebhook({ ...fresh, secrets: [OLD], now: NOW }), 'bad-signature');
  });

  test('unknown versions and malformed entries are ignored; a header with no v1 signature is refused', () => {
    const { headers, body } = signed({ body: '{}', secrets: [NEW] });
    const good = headers['webhook-signature'] ?? '';
    const mixed = `v1a,${'A'.repeat(86)}== v2,abc v1,not-base64! v1,${Buffer.alloc(32).toString('base64')} junk ${good}`;
    assert.ok(verifyWebhook({ headers: { ...headers, 'webhook-signature': mixed }, body, secrets: [NEW], now: NOW }));
    for (const signature of ['v2,abc', 'garbage', 'v1,', 'v1,!!!!', good.replace('v1,', 'v1a,')]) {
      rejects(() => verifyWebhook({ headers: { ...headers, 'webhook-signature': signature }, body, secrets: [NEW], now: NOW }), 'bad-signature');
    }
    // Repeated header lines (Node joins them into an array) still verify.
    assert.ok(verifyWebhook({ headers: { ...headers, 'webhook-signature': ['v2,abc', good] }, body, secrets: [NEW], now: NOW }));
  });

  test('missing or malformed headers', () => {
    const { headers, body } = signed({ body: '{}', secrets: [NEW] });
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const without = { ...headers };
      delete without[name];
      assert.match(rejects(() => verifyWebhook({ headers: without, body, secrets: [NEW], now: NOW }), 'missing-headers').message, new RegExp(name));
    }
    rejects(() => verifyWebhook({ headers: {}, body, secrets: [NEW], now: NOW }), 'missing-headers');
    for (const ts of ['soon', '-5', '1.5', '1e9']) {
      rejects(() => verifyWebhook({ headers: { ...headers, 'webhook-timestamp': ts }, body, secrets: [NEW], now: NOW }), 'missing-headers');
    }
  });

  test('malformed secrets are refused, and no message contains a secret', () => {
    const { headers, body } = signed({ body: '{}', secrets: [NEW] });
    const bad = ['', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_', 'whsec_not base64!', 'whsec_c2hvcnQ=', `whsec_${Buffer.alloc(65).toString('base64')}`, `whsec_${'A'.repeat(42)}B=`];
    for (const secret of bad) {
      const error = rejects(() => verifyWebhook({ headers, body, secrets: [NEW, secret], now: NOW }), 'bad-secret');
      assert.match(error.message, /secret #2/);
      if (secret.length > 6) assert.ok(!error.message.includes(secret.slice(6)), error.message);
      rejects(() => signWebhook({ id: 'x', timestamp: NOW, body, secrets: [secret] }), 'bad-secret');
    }
    rejects(() => verifyWebhook({ headers, body, secrets: [], now: NOW }), 'bad-secret');
    rejects(() => signWebhook({ id: 'x', timestamp: NOW, body, secrets: [] }), 'bad-secret');
    const wrong = rejects(() => verifyWebhook({ headers, body, secrets: [OLD], now: NOW }), 'bad-signature');
    assert.ok(!wrong.message.includes(OLD.slice(6)) && !wrong.message.includes(NEW.slice(6)));
  });

  test('generateWebhookSecret: whsec_ + base64 of 24 random bytes, different every time, usable', () => {
    const a = generateWebhookSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.notEqual(a, generateWebhookSecret());
    const { headers, body } = signed({ body: 'x', secrets: [a] });
    assert.ok(verifyWebhook({ headers, body, secrets: [a], now: NOW }));
  });
});

describe('readDelivery', () => {
  const status = { statusUpdate: { taskId: 'task-7', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } } } };
  const a2aHeaders = { 'a2a-task-id': 'task-7', 'a2a-event-seq': '3', 'content-type': 'application/a2a+json' };

  test('a signed status update: verified, decoded, with id, seq, task, token and Authorization', () => {
    const body = JSON.stringify(status);
    const { headers } = signed({ id: 'task-7.3', body, secrets: [NEW] });
    const delivery = readDelivery({
      headers: { ...headers, ...a2aHeaders, 'x-a2a-notification-token': 'tok', authorization: 'Bearer xyz' },
      body,
      secrets: [OLD, NEW],
      now: NOW,
    });
    assert.deepEqual(delivery, { id: 'task-7.3', seq: 3, taskId: 'task-7', timestamp: NOW, event: status, verified: true, token: 'tok', authorization: 'Bearer xyz' });
    assert.ok(tokenMatches(delivery, 'tok'));
    assert.ok(!tokenMatches(delivery, 'to'));
    assert.ok(!tokenMatches({}, 'tok'));
    assert.ok(authorizationMatches(delivery, 'bearer xyz'));
    assert.ok(!authorizationMatches(delivery, 'Bearer xy'));
    assert.ok(!authorizationMatches(delivery, 'Basic xyz'));
  });

  test('without secrets nothing is verified, the rest is still checked', () => {
    const delivery = readDelivery({ headers: { 'webhook-id': 'task-7.1', 'webhook-timestamp': '12' }, body: JSON.stringify(status) });
    assert.equal(delivery.verified, false);
    assert.equal(delivery.seq, 1);
    assert.equal(delivery.taskId, 'task-7');
    assert.equal(delivery.timestamp, 12);
    assert.throws(() => readDelivery({ headers: { 'webhook-timestamp': '12' }, body: '{}' }), (e: unknown) => e instanceof WebhookDeliveryError && e.reason === 'bad-headers');
    assert.throws(() => readDelivery({ headers: { 'webhook-id': 'task-7.1' }, body: '{}' }), /missing header webhook-timestamp/);
  });

  test('a bad signature throws WebhookVerificationError before the body is looked at', () => {
    const { headers } = signed({ id: 'task-7.3', body: 'not json', secrets: [OLD] });
    assert.throws(() => readDelivery({ headers, body: 'not json', secrets: [NEW], now: NOW }), (e: unknown) => e instanceof WebhookVerificationError && e.reason === 'bad-signature');
  });

  test('a body that is not JSON, or not a StreamResponse, is a clear bad-body error', () => {
    const cases: [string, RegExp][] = [
      ['not json', /the body is not JSON/],
      ['[1,2]', /not an A2A StreamResponse/],
      ['{}', /must set one of task, message, statusUpdate, artifactUpdate/],
      ['{"hello":"world"}', /must set one of task, message, statusUpdate, artifactUpdate/],
      [JSON.stringify({ ...status, task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }), /must set only one of/],
      ['{"statusUpdate":{"taskId":"task-7"}}', /statusUpdate\.contextId is required.*statusUpdate\.status is required/],
      ['{"statusUpdate":{"taskId":"task-7","contextId":"c","status":{"state":"TASK_STATE_SLEEPING"}}}', /statusUpdate\.status\.state/],
    ];
    for (const [body, message] of cases) {
      const { headers } = signed({ id: 'task-7.3', body, secrets: [NEW] });
      assert.throws(
        () => readDelivery({ headers, body, secrets: [NEW], now: NOW }),
        (e: unknown) => e instanceof WebhookDeliveryError && e.reason === 'bad-body' && message.test(e.message),
        body,
      );
    }
    const bytes = new Uint8Array([0x7b, 0xff, 0x7d]);
    assert.throws(() => readDelivery({ headers: { 'webhook-id': 'task-7.1', 'webhook-timestamp': '1' }, body: bytes }), /not UTF-8/);
  });

  test('the unsigned a2a-* headers must agree with the signed webhook-id and body', () => {
    const body = JSON.stringify(status);
    const { headers } = signed({ id: 'task-7.3', body, secrets: [NEW] });
    const read = (extra: Record<string, string>) => readDelivery({ headers: { ...headers, ...extra }, body, secrets: [NEW], now: NOW });
    assert.throws(() => read({ 'a2a-event-seq': '4' }), (e: unknown) => e instanceof WebhookDeliveryError && e.reason === 'bad-headers' && /a2a-event-seq 4/.test(e.message));
    assert.throws(() => read({ 'a2a-event-seq': 'three' }), /a2a-event-seq is not a number/);
    assert.throws(() => read({ 'a2a-task-id': 'task-8' }), /a2a-task-id names task task-8, the event is about task task-7/);
    const other = signed({ id: 'task-8.3', body, secrets: [NEW] });
    assert.throws(() => readDelivery({ ...other, secrets: [NEW], now: NOW }), /webhook-id names task task-8/);
    // An id that is not <taskId>.<seq>: the seq comes from a2a-event-seq.
    const plain = signed({ id: 'msg_abc', body, secrets: [NEW] });
    assert.equal(readDelivery({ headers: { ...plain.headers, 'a2a-event-seq': '9' }, body, secrets: [NEW], now: NOW }).seq, 9);
    assert.throws(() => readDelivery({ ...plain, secrets: [NEW], now: NOW }), /no event seq/);
  });

  test('task snapshots and artifact updates; task ids containing dots', () => {
    const task = { task: { id: 'a.b.c', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } };
    const one = signed({ id: 'a.b.c.12', body: JSON.stringify(task), secrets: [NEW] });
    const d = readDelivery({ ...one, secrets: [NEW], now: NOW });
    assert.equal(d.taskId, 'a.b.c');
    assert.equal(d.seq, 12);
    const artifact = { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a1', name: 'report', parts: [{ text: 'x' }] }, lastChunk: true } };
    const two = signed({ id: 't.2', body: JSON.stringify(artifact), secrets: [NEW] });
    assert.deepEqual(readDelivery({ ...two, secrets: [NEW], now: NOW }).event, artifact);
  });
});
