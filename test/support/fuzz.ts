/**
 * The seeded mutation fuzz shared by the three bindings (R19, issue 8): a structural JSON
 * mutator (delete, retype, null, odd numbers and strings, deep wrapping, `__proto__` /
 * `constructor.prototype` keys, unknown members), text corruptions (truncation, stray bytes),
 * a protobuf byte mutator, and a runner that sends pre-generated requests with bounded
 * concurrency, checks every answer and, on failure, names the seed, the index and the request.
 * Everything is a pure function of the seed (test/support/prng.ts), so a failure reproduces.
 */
import assert from 'node:assert/strict';
import { prng } from './prng.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;
export type Random = () => number;

export const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
export const int = (random: Random, below: number): number => Math.floor(random() * below);

/** The fuzz seed: `FUZZ_SEED` (decimal or 0x…) when set, else the test's fixed default. */
export function fuzzSeed(fallback: number): number {
  const env = process.env.FUZZ_SEED;
  return env === undefined ? fallback : Number(env);
}

/** The number of fuzz requests: `FUZZ_COUNT` when set (to go deeper locally), else the default. */
export function fuzzCount(fallback: number): number {
  return Number(process.env.FUZZ_COUNT ?? fallback);
}

export const FUZZ_STRINGS: readonly string[] = [
  '', '\u0000', '\ud800', '😀'.repeat(50), '\u202eevil', 'é', 'a'.repeat(100_000), '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '__proto__', 'constructor', 'TASK_STATE_COMPLETED', 'ROLE_USER', '1e999', '{"a":1}', '../../etc/passwd', '%00', 'a/b:c',
];
export const FUZZ_NUMBERS: readonly number[] = [2 ** 53 + 1, -(2 ** 53), 1e308, -1e308, 2147483648, -2147483649, 1.5, -0, 1e-7, 0, -1, 100, 101];
const MEMBER_NAMES = ['kind', 'extra', 'tenant', 'taskId', 'id', 'blocking', 'params', 'metadata', 'extensions'];
const MEMBER_VALUES: readonly Json[] = [1, 'x', null, { deep: [1] }, 'acme', [], true];

/** One valid request per operation (and some variants), by method name; the fuzz starts from these. */
export interface SeedRequest {
  method: string;
  params?: Json;
}

export function seedRequests(taskId: string, contextId: string): SeedRequest[] {
  const m = (text: string, extra: Json = {}) => ({ messageId: `fz-${text}`, role: 'ROLE_USER', parts: [{ text }], ...extra });
  const p = (method: string, params?: Json): SeedRequest => (params === undefined ? { method } : { method, params });
  return [
    p('SendMessage', { message: m('hi fuzz', { contextId, metadata: { k: 'v' } }), configuration: { historyLength: 2, acceptedOutputModes: ['text/plain'] }, metadata: { r: 1 } }),
    p('SendMessage', { message: m('msg fuzz'), configuration: { returnImmediately: true } }),
    p('SendMessage', { message: m('data', { parts: [{ data: { a: [1, 2] }, mediaType: 'application/json' }, { raw: 'aGk=', filename: 'x.txt' }, { url: 'https://example.com/f' }] }) }),
    p('SendStreamingMessage', { message: m('stream fuzz') }),
    p('GetTask', { id: taskId, historyLength: 1 }),
    p('ListTasks', { contextId, status: 'TASK_STATE_COMPLETED', pageSize: 5, includeArtifacts: true, historyLength: 0, statusTimestampAfter: '2020-01-01T00:00:00Z' }),
    p('CancelTask', { id: taskId, metadata: { reason: 'fuzz' } }),
    p('SubscribeToTask', { id: taskId }),
    p('CreateTaskPushNotificationConfig', { taskId, url: 'https://hooks.example.com/a2a', token: 't', authentication: { scheme: 'Bearer', credentials: 'c' } }),
    p('GetTaskPushNotificationConfig', { taskId, id: 'cfg' }),
    p('ListTaskPushNotificationConfigs', { taskId, pageSize: 2, pageToken: '' }),
    p('DeleteTaskPushNotificationConfig', { taskId, id: 'cfg' }),
    p('GetExtendedAgentCard'),
  ];
}

/**
 * The seed with a messageId drawn from `random` (when it sends a message), so that mutated
 * SendMessage requests create new tasks instead of all colliding with the first one (R4).
 */
export function withFreshMessageId(seed: SeedRequest, random: Random): SeedRequest {
  const message = seed.params?.message;
  if (!message) return seed;
  return { ...seed, params: { ...seed.params, message: { ...message, messageId: `fz-${int(random, 2 ** 31).toString(36)}` } } };
}

/** Every (parent, key) location in a JSON value, the root included as (holder, 'v'). */
export function locations(holder: Json): [Json, string | number][] {
  const out: [Json, string | number][] = [];
  const walk = (parent: Json, key: string | number) => {
    out.push([parent, key]);
    const v = parent[key];
    if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v, Array.isArray(v) ? Number(k) : k);
  };
  walk(holder, 'v');
  return out;
}

export interface MutateOptions {
  /** Sets a root member to one of these values (e.g. JSON-RPC `method` to another method name). */
  root?: { key: string; values: readonly Json[] };
}

/** A structurally mutated deep copy of `value`: one to three random edits. */
export function mutateValue(value: Json, random: Random, options: MutateOptions = {}): Json {
  const holder = { v: structuredClone(value) };
  for (let n = 1 + int(random, 3); n > 0; n--) {
    const [parent, key] = pick(random, locations(holder));
    const current = parent[key];
    const objects = locations(holder).filter(([p, k]) => p[k] && typeof p[k] === 'object' && !Array.isArray(p[k]));
    let op = int(random, 11);
    if (objects.length === 0 && op >= 6 && op <= 9) op = 1;
    switch (op) {
      case 0:
        if (parent !== holder && Array.isArray(parent)) parent.splice(key as number, 1);
        else if (parent !== holder) delete parent[key];
        break;
      case 1:
        parent[key] = pick(random, [42, 'str', true, {}, [], null].filter((x) => typeof x !== typeof current));
        break;
      case 2:
        parent[key] = null;
        break;
      case 3:
        parent[key] = pick(random, FUZZ_NUMBERS);
        break;
      case 4: {
        let wrapped = current;
        for (let d = pick(random, [1, 3, 31, 40]); d > 0; d--) wrapped = [wrapped];
        parent[key] = wrapped;
        break;
      }
      case 5:
        parent[key] = pick(random, FUZZ_STRINGS);
        break;
      case 6: {
        const [p, k] = pick(random, objects);
        // An own, enumerable "__proto__" member: JSON.stringify writes it as a key.
        Object.defineProperty(p[k], '__proto__', { value: { polluted: true }, enumerable: true, writable: true, configurable: true });
        break;
      }
      case 7: {
        const [p, k] = pick(random, objects);
        p[k].constructor = { prototype: { polluted: true } };
        break;
      }
      case 8: {
        const [p, k] = pick(random, objects);
        p[k][pick(random, MEMBER_NAMES)] = structuredClone(pick(random, MEMBER_VALUES));
        break;
      }
      case 9:
        if (options.root && holder.v && typeof holder.v === 'object') holder.v[options.root.key] = structuredClone(pick(random, options.root.values));
        else parent[key] = structuredClone(pick(random, MEMBER_VALUES));
        break;
      default:
        parent[key] = Array.isArray(current) ? [] : current && typeof current === 'object' ? {} : current;
    }
  }
  return holder.v;
}

/** Text-level damage to a JSON document, applied to about 10 % of the requests. */
export function corruptText(text: string, random: Random): string {
  const r = random();
  if (r < 0.04) return text.slice(0, int(random, text.length));
  if (r < 0.08) {
    const at = int(random, text.length);
    return text.slice(0, at) + pick(random, ['"', '{', ']', ',', '\\', '\u0001', '1e999']) + text.slice(at);
  }
  if (r < 0.1) return text.replace(/"id":1\b/, '"id":1e999');
  return text;
}

/** A mutated JSON document derived from a valid request. */
export function mutateJson(value: Json, random: Random, options: MutateOptions = {}): string {
  return corruptText(JSON.stringify(mutateValue(value, random, options)) ?? 'null', random);
}

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/**
 * Byte-level damage to a protobuf message: truncation, flipped bytes, inserted garbage, a
 * field re-tagged with another wire type, huge or negative length prefixes, unknown and
 * repeated fields, deprecated group wire types and 10-byte varints.
 */
export function mutateBytes(input: Uint8Array, random: Random): Uint8Array {
  let bytes = Array.from(input);
  for (let n = 1 + int(random, 2); n > 0; n--) {
    const at = int(random, bytes.length + 1);
    switch (int(random, 9)) {
      case 0:
        bytes = bytes.slice(0, at);
        break;
      case 1:
        if (bytes.length > 0) {
          const i = Math.min(at, bytes.length - 1);
          bytes[i] = (bytes[i] as number) ^ (1 << int(random, 8));
        }
        break;
      case 2:
        bytes.splice(at, 0, ...Array.from({ length: 1 + int(random, 8) }, () => int(random, 256)));
        break;
      case 3: {
        // Another wire type on a tag-looking byte (wrong field types, groups 3/4, reserved 6/7).
        const tags = bytes.map((b, i) => [b, i] as const).filter(([b]) => b !== 0 && (b & 0x80) === 0);
        if (tags.length > 0) {
          const [b, i] = pick(random, tags);
          bytes[i] = (b & ~7) | int(random, 8);
        }
        break;
      }
      case 4:
        // A length-delimited field claiming gigabytes (or a negative int32 length).
        bytes.splice(at, 0, (1 + int(random, 15)) * 8 + 2, ...pick(random, [varint(0xffffffff), varint(2 ** 31), [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]]));
        break;
      case 5:
        // An unknown field (number 1000+) of a random wire type, then some bytes.
        bytes.push(...varint((1000 + int(random, 100_000)) * 8 + pick(random, [0, 1, 2, 5])), ...varint(int(random, 5)), 1, 2, 3, 4, 5, 6, 7, 8);
        break;
      case 6:
        // The whole message twice (protobuf merges), or an early prefix duplicated.
        bytes = bytes.concat(bytes.slice(0, at));
        break;
      case 7:
        // An overlong varint (11 bytes, never terminating within 10).
        bytes.splice(at, 0, ...Array.from({ length: 11 }, () => 0xff));
        break;
      default:
        bytes = bytes.slice(at).concat(bytes.slice(0, at));
    }
  }
  return Uint8Array.from(bytes);
}

export interface FuzzRun<Req, Res> {
  /** Names the run in failure messages. */
  name: string;
  seed: number;
  count: number;
  /** Parallel requests in flight. */
  concurrency: number;
  /** One request, a pure function of `random`. */
  generate: (random: Random) => Req;
  send: (request: Req) => Promise<Res>;
  /** What is wrong with the answer, or undefined when it is acceptable. */
  check: (request: Req, answer: Res) => string | undefined;
  /** The outcome bucket of an acceptable answer (e.g. an error code), for coverage asserts. */
  classify: (answer: Res) => string;
  /** Prints a request for a failure message. */
  show: (request: Req) => string;
  /** No answer within this long is a failure (default 5 s). */
  timeoutMs?: number;
}

/**
 * Generates `count` requests from the seed (all of them first, so the corpus does not depend
 * on timing), sends them `concurrency` at a time, and fails at the first bad or missing answer
 * with the seed, index and request. Resolves with the outcome counts.
 */
export async function runFuzz<Req, Res>(run: FuzzRun<Req, Res>): Promise<Map<string, number>> {
  const random = prng(run.seed);
  const requests = Array.from({ length: run.count }, () => run.generate(random));
  const outcomes = new Map<string, number>();
  const timeoutMs = run.timeoutMs ?? 5000;
  let next = 0;
  let failed = false;
  const where = (index: number) => `${run.name}: seed ${run.seed} (FUZZ_SEED=${run.seed}), request #${index}\nrequest: ${run.show(requests[index] as Req).slice(0, 800)}`;
  const worker = async () => {
    while (next < requests.length && !failed) {
      const index = next++;
      const request = requests[index] as Req;
      let timer: NodeJS.Timeout | undefined;
      let answer: Res;
      try {
        answer = await Promise.race([
          run.send(request),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (error) {
        failed = true;
        assert.fail(`${where(index)}\nsend failed: ${(error as Error).stack ?? String(error)}`);
      } finally {
        clearTimeout(timer);
      }
      const problem = run.check(request, answer);
      if (problem !== undefined) {
        failed = true;
        assert.fail(`${where(index)}\nproblem: ${problem}`);
      }
      const key = run.classify(answer);
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: run.concurrency }, worker));
  return outcomes;
}

/** Asserts that each bucket was reached more than `min` times, so the fuzz exercises every layer. */
export function assertReached(outcomes: Map<string, number>, buckets: readonly string[], min = 20): void {
  for (const b of buckets) assert.ok((outcomes.get(b) ?? 0) > min, `${b} reached ${outcomes.get(b) ?? 0} times: ${JSON.stringify(Object.fromEntries(outcomes))}`);
}

/** A stack trace in an error text (an internal detail leaking to the client). */
export const STACK_PATTERN = /\n\s+at |\bat .+\(.+:\d+:\d+\)|node:internal|\/src\/.+\.ts/;
