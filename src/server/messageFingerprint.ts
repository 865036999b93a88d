/** R4: what tells a retried SendMessage (same message) from a reused messageId (different message). */
import { invalidField, type A2AError } from '../protocol/errors.js';
import type { Message } from '../protocol/types.js';
import type { MessageClaim } from './stores/taskStore.js';

/** R4: the caller's own message id again, with a different message (another caller's ids are not its concern, IDEM-02). */
export function usedId(): A2AError {
  return invalidField('message.messageId', 'was already used for a different message');
}

/** The claim a message makes; its fingerprint is computed only if the message is recorded (direct replies never are). */
export function messageClaim(message: Message): MessageClaim {
  return new LazyClaim(message);
}

/**
 * A class, not an object literal with a getter: a getter in a literal is a new closure per
 * object, and V8 then gives every claim its own hidden class (about 700 bytes each, kept for as
 * long as the in-memory store keeps the claim).
 */
class LazyClaim implements MessageClaim {
  readonly messageId: string;
  private computed: string | undefined;

  constructor(private readonly message: Message) {
    this.messageId = message.messageId;
  }

  get fingerprint(): string {
    return (this.computed ??= messageFingerprint(this.message));
  }
}

/**
 * A stable digest of a message for duplicate detection: key order does not matter, every
 * value does. Two independent 32-bit FNV-1a lanes over canonical JSON (Math.imul, no BigInt,
 * so large messages stay cheap) plus the length: collisions only need to be unlikely between
 * two bodies sent with the same messageId, not adversarially hard.
 */
export function messageFingerprint(value: unknown): string {
  const text = canonicalJson(value);
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return `fnv:${(a >>> 0).toString(16)}${(b >>> 0).toString(16)}:${text.length}`;
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
