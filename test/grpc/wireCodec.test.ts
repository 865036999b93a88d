/**
 * The one-pass gRPC codec (src/bindings/grpc/wire{Codec,Encode,Decode}.ts) must agree with protobuf-es, the
 * reference implementation: for every message of the A2A service, on a corpus of real
 * payloads and on a seeded fuzz of random messages built from the descriptors,
 *   encodeJson(json)  decodes (protobuf-es fromBinary) to the same message as fromJson(json);
 *   decodeToJson(b)   equals protobuf-es toJson(fromBinary(b)).
 * Plus the edges: unknown fields skipped, malformed bytes and unrepresentable values refused.
 */
import { prng } from '../support/prng.js';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ScalarType, equals, fromBinary, fromJson, toBinary, toJson, type DescField, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { supported, WireCodecError } from '../../src/bindings/grpc/wireCodec.js';
import { decodeToJson } from '../../src/bindings/grpc/wireDecode.js';
import { encodeJson } from '../../src/bindings/grpc/wireEncode.js';
import { parseTimestamp } from '../../src/protocol/timestamp.js';
import { StructSchema, TimestampSchema } from '@bufbuild/protobuf/wkt';
import { deepStruct } from './wire.js';
import { A2AService, AgentCardSchema, ListTasksRequestSchema, ListTaskPushNotificationConfigsResponseSchema, ListTasksResponseSchema, PartSchema, SendMessageResponseSchema, StreamResponseSchema, TaskSchema } from '../../src/gen/a2a_pb.js';

const MESSAGES: DescMessage[] = (() => {
  const seen = new Map<string, DescMessage>();
  const visit = (d: DescMessage) => {
    if (seen.has(d.typeName)) return;
    seen.set(d.typeName, d);
    for (const f of d.fields) if (f.message) visit(f.message);
  };
  for (const m of A2AService.methods) {
    visit(m.input);
    visit(m.output);
  }
  return [...seen.values()];
})();

/** Both directions agree with protobuf-es for `json` as a `desc`. */
function agree(desc: DescMessage, json: unknown, label = desc.typeName): void {
  const reference = fromJson(desc, json as JsonValue, { ignoreUnknownFields: true });
  const referenceBytes = toBinary(desc, reference);
  const expected = toJson(desc, reference);
  const mine = encodeJson(desc, json);
  assert.ok(equals(desc, fromBinary(desc, mine), reference), `${label}: encodeJson differs from fromJson+toBinary for ${JSON.stringify(json)}`);
  assert.deepStrictEqual(decodeToJson(desc, referenceBytes), expected, `${label}: decodeToJson differs from toJson for ${JSON.stringify(json)}`);
  assert.deepStrictEqual(decodeToJson(desc, mine), expected, `${label}: round trip`);
}

/** Seeded helpers over the shared PRNG, so failures reproduce. */
function rng(seed: number) {
  const next = prng(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  return { next, int, pick };
}

const STRINGS = ['', 'a', 'hello world', 'héllo wörld', '日本語テキスト', '🙂 emoji', 'x'.repeat(200), 'line\nbreak', '__proto__', 'TASK_STATE_UNSPECIFIED'];
/** Map and Struct keys (`__proto__` has its own test: protobuf-es turns it into a prototype). */
const KEYS = STRINGS.filter((k) => k !== '__proto__');
const INTS = [0, 1, -1, 127, 128, 300, 16384, 2147483647, -2147483648, -300];

function randomJsonValue(r: ReturnType<typeof rng>, depth: number): JsonValue {
  switch (r.int(depth > 2 ? 4 : 6)) {
    case 0:
      return null;
    case 1:
      return r.pick([0, 1.5, -2, 1e21, 12345678.9, -0.001]);
    case 2:
      return r.pick(STRINGS);
    case 3:
      return r.next() < 0.5;
    case 4:
      return Array.from({ length: r.int(3) }, () => randomJsonValue(r, depth + 1));
    default: {
      const o: Record<string, JsonValue> = {};
      for (let i = r.int(3); i > 0; i--) o[r.pick(KEYS)] = randomJsonValue(r, depth + 1);
      return o;
    }
  }
}

function randomTimestamp(r: ReturnType<typeof rng>): string {
  const seconds = r.pick([0, 1, 1_700_000_000, -62135596800, 253402300799, 951782400]) + r.int(1000);
  const nanos = r.pick([0, 1, 1000, 1_000_000, 123_000_000, 123_456_000, 123_456_789, 999_999_999]);
  const base = new Date(Math.min(seconds, 253402300799) * 1000).toISOString().slice(0, 19);
  return nanos === 0 ? `${base}Z` : `${base}.${String(nanos).padStart(9, '0')}Z`;
}

function randomField(r: ReturnType<typeof rng>, f: DescField, depth: number): unknown {
  const one = (): unknown => {
    const kind = f.fieldKind === 'list' ? f.listKind : f.fieldKind === 'map' ? f.mapKind : f.fieldKind;
    if (kind === 'enum') return r.pick((f.enum as NonNullable<typeof f.enum>).values).name;
    if (kind === 'message') return randomMessage(r, f.message as DescMessage, depth + 1);
    switch (f.scalar) {
      case ScalarType.STRING:
        return r.pick(STRINGS);
      case ScalarType.BOOL:
        return r.next() < 0.5;
      case ScalarType.INT32:
        return r.pick(INTS);
      case ScalarType.BYTES:
        return Buffer.from(Array.from({ length: r.int(40) }, () => r.int(256))).toString('base64');
      default:
        throw new Error(`no generator for ${f.toString()}`);
    }
  };
  if (f.fieldKind === 'list') return Array.from({ length: r.int(3) }, one);
  if (f.fieldKind === 'map') return Object.fromEntries(Array.from({ length: r.int(3) }, () => [r.pick(KEYS), one()]));
  return one();
}

function randomMessage(r: ReturnType<typeof rng>, desc: DescMessage, depth: number): unknown {
  switch (desc.typeName) {
    case 'google.protobuf.Timestamp':
      return randomTimestamp(r);
    case 'google.protobuf.Value':
      return randomJsonValue(r, depth);
    case 'google.protobuf.Struct': {
      const v = randomJsonValue(r, 5);
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
    }
    case 'google.protobuf.ListValue':
      return Array.from({ length: r.int(3) }, () => randomJsonValue(r, depth + 1));
    case 'google.protobuf.Empty':
      return {};
  }
  const out: Record<string, unknown> = {};
  const oneofsDone = new Set<string>();
  for (const f of desc.fields) {
    if (r.next() < (depth > 3 ? 0.8 : 0.4)) continue;
    if (f.oneof) {
      if (oneofsDone.has(f.oneof.name)) continue;
      oneofsDone.add(f.oneof.name);
    }
    out[r.next() < 0.1 ? f.name : f.jsonName] = randomField(r, f, depth);
  }
  return out;
}

describe('wireCodec agrees with protobuf-es', () => {
  test('every message of the service is handled by the one-pass codec', () => {
    for (const desc of MESSAGES) assert.ok(supported(desc), desc.typeName);
  });

  test('corpus: tasks, events, parts, cards, list responses', () => {
    const task = {
      id: 't-1',
      contextId: 'c-1',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-05T09:12:44.120Z', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } },
      artifacts: [{ artifactId: 'a', name: 'echo', parts: [{ text: 'hi' }, { raw: 'AAEC/w==', filename: 'b.bin', mediaType: 'application/octet-stream' }, { url: 'https://x.example/f' }, { data: { a: [1, 'two', null, { b: true }] } }, { data: null }, { data: 'str' }, { text: '' }] }],
      history: [{ messageId: 'm0', role: 'ROLE_USER', parts: [{ text: 'hi', metadata: { k: { deep: [1, 2] } } }], extensions: ['https://e/x'], referenceTaskIds: ['t-0'] }],
      metadata: { trace: 'abc', n: 1.5, nested: { list: [] }, empty: {} },
    };
    agree(TaskSchema, task);
    agree(SendMessageResponseSchema, { task });
    agree(SendMessageResponseSchema, { message: { messageId: 'x', role: 'ROLE_AGENT', parts: [{ text: 'hey' }] } });
    agree(StreamResponseSchema, { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
    agree(StreamResponseSchema, { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] }, append: true, lastChunk: false } });
    agree(ListTasksRequestSchema, { pageSize: 0, historyLength: 0, includeArtifacts: false, statusTimestampAfter: '2026-01-05T10:00:00+02:00' });
    agree(ListTasksRequestSchema, { status: 3 });
    agree(PartSchema, { raw: 'AAEC_w' });
    agree(AgentCardSchema, {
      name: 'n',
      description: 'd',
      supportedInterfaces: [{ url: 'h:1', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 't' }],
      version: '1',
      capabilities: { streaming: false, pushNotifications: true, extensions: [{ uri: 'u', required: true, params: { a: 1 } }] },
      securitySchemes: {
        apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } },
        oauth: { oauth2SecuritySchemes: undefined, oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: 'a', tokenUrl: 't', scopes: { 'tasks:write': 'w' }, pkceRequired: true } } } },
      },
      securityRequirements: [{ schemes: { oauth: { list: ['tasks:write'] }, apiKey: { list: [] } } }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'D', tags: ['t'] }],
      signatures: [{ protected: 'p', signature: 's', header: { kid: 'k' } }],
      documentationUrl: '',
      iconUrl: 'https://i/x.png',
    });
  });

  test('seeded fuzz: 300 random messages of every type', () => {
    const r = rng(20261130);
    for (const desc of MESSAGES) {
      for (let i = 0; i < 300; i++) agree(desc, randomMessage(r, desc, 0), `${desc.typeName} #${i}`);
    }
  });

  test('unknown fields, repeated singular messages (merged) and oneof "last one wins" read like protobuf-es', () => {
    const task = toBinary(TaskSchema, fromJson(TaskSchema, { id: 't', status: { state: 'TASK_STATE_WORKING' } }));
    const withUnknown = Buffer.concat([task, Buffer.from([0xf8, 0x3e, 0x05, 0x8a, 0x3f, 0x02, 0x61, 0x62, 0x95, 0x3f, 1, 2, 3, 4])]);
    assert.deepStrictEqual(decodeToJson(TaskSchema, withUnknown), toJson(TaskSchema, fromBinary(TaskSchema, withUnknown)));
    const twoStatuses = Buffer.concat([
      toBinary(TaskSchema, fromJson(TaskSchema, { status: { state: 'TASK_STATE_WORKING' } })),
      toBinary(TaskSchema, fromJson(TaskSchema, { status: { timestamp: '2026-01-01T00:00:00Z' } })),
    ]);
    assert.deepStrictEqual(decodeToJson(TaskSchema, twoStatuses), toJson(TaskSchema, fromBinary(TaskSchema, twoStatuses)));
    const twoMembers = Buffer.concat([toBinary(PartSchema, fromJson(PartSchema, { text: 'a' })), toBinary(PartSchema, fromJson(PartSchema, { url: 'u' }))]);
    assert.deepStrictEqual(decodeToJson(PartSchema, twoMembers), toJson(PartSchema, fromBinary(PartSchema, twoMembers)));
  });

  test('strings around the short-ASCII path of the encoder (127/128 chars, DEL, non-ASCII at the end, lone surrogates in values)', () => {
    const edge = ['x'.repeat(127), 'x'.repeat(128), 'x'.repeat(126) + 'é', 'x'.repeat(127) + '🙂', '\x7f', '\x80', 'a\u0000b'];
    for (const text of edge) {
      agree(PartSchema, { text }, JSON.stringify(text));
      agree(TaskSchema, { id: text, metadata: { [text]: text }, history: [{ messageId: text, parts: [{ text }], metadata: { k: [text] } }] }, JSON.stringify(text));
    }
    // A lone surrogate is refused in a string value and in a Struct string, however long the string.
    for (const bad of ['\ud800', 'x'.repeat(100) + '\udc00', 'x'.repeat(200) + '\ud800']) {
      assert.throws(() => encodeJson(PartSchema, { text: bad }), (e: unknown) => e instanceof WireCodecError && e.path === 'text');
      assert.throws(() => encodeJson(TaskSchema, { metadata: { k: bad } }), (e: unknown) => e instanceof WireCodecError && e.path === 'metadata.k');
    }
  });

  test('R17 "__proto__" map and Struct keys stay data: own properties, Object.prototype untouched', () => {
    const json = JSON.parse('{"id":"t","metadata":{"__proto__":{"polluted":true}},"artifacts":[{"artifactId":"a","parts":[{"data":{"__proto__":1}}]}]}');
    const decoded = decodeToJson(TaskSchema, encodeJson(TaskSchema, json)) as Record<string, Record<string, unknown>>;
    assert.ok(Object.prototype.hasOwnProperty.call(decoded.metadata, '__proto__'));
    assert.deepStrictEqual(Object.getPrototypeOf(decoded.metadata), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('A10 REQUIRED fields, and the fields of a …Response message, at their default can be filled in (the shape the HTTP bindings write)', () => {
    const update = toBinary(StreamResponseSchema, fromJson(StreamResponseSchema, { statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING' } } }));
    assert.deepStrictEqual(decodeToJson(StreamResponseSchema, update, { fillDefaults: true }), { statusUpdate: { taskId: 't', contextId: '', status: { state: 'TASK_STATE_WORKING' } } });
    assert.deepStrictEqual(decodeToJson(ListTasksResponseSchema, new Uint8Array(), { fillDefaults: true }), { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 });
    assert.deepStrictEqual(decodeToJson(ListTasksResponseSchema, new Uint8Array()), {});
    // A …Response message is filled whole (none of its fields is REQUIRED here); its configs are not.
    const configs = toBinary(ListTaskPushNotificationConfigsResponseSchema, fromJson(ListTaskPushNotificationConfigsResponseSchema, { configs: [{ url: 'https://h/x' }] }));
    assert.deepStrictEqual(decodeToJson(ListTaskPushNotificationConfigsResponseSchema, new Uint8Array(), { fillDefaults: true }), { configs: [], nextPageToken: '' });
    assert.deepStrictEqual(decodeToJson(ListTaskPushNotificationConfigsResponseSchema, configs, { fillDefaults: true }), { configs: [{ url: 'https://h/x' }], nextPageToken: '' });
  });

  test('timestamps: as protobuf-es, except that impossible dates are refused and lowercase t/z accepted (RFC 3339)', () => {
    const same = [
      '2024-02-29T00:00:00Z', '2000-02-29T12:00:00Z', '2026-01-05T09:12:44.120Z', '2026-01-05T09:12:44.1Z',
      '2026-01-05T09:12:44.123456789Z', '2026-01-05T09:12:44+02:00', '2026-01-05T09:12:44-05:30',
      '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999999Z',
    ];
    for (const s of same) {
      const ref = fromJson(TimestampSchema, s);
      assert.deepStrictEqual(parseTimestamp(s), { seconds: Number(ref.seconds), nanos: ref.nanos }, s);
    }
    for (const s of ['2026-01-05T09:12:44.1234567891Z', '2026-1-05T09:12:44Z', '2026-01-05 09:12:44Z', '2026-01-05T09:12:60Z', '2026-01-05T09:12:44', '2026-01-05T09:12:44.Z', '2026-01-05T09:12:44+24:00']) {
      assert.equal(parseTimestamp(s), undefined, s);
    }
    // protobuf-es rolls these over (to March 1st, to the next day); they are not dates.
    for (const s of ['2023-02-29T00:00:00Z', '1900-02-29T12:00:00Z', '2026-01-05T24:00:00Z']) assert.equal(parseTimestamp(s), undefined, s);
    assert.deepStrictEqual(parseTimestamp('2026-01-05t09:12:44z'), parseTimestamp('2026-01-05T09:12:44Z'));
  });

  test('R16 nesting is bounded: maxDepth refuses deeper input with a depth error, not a stack overflow', () => {
    const deep = Buffer.from(deepStruct(5_000));
    assert.throws(() => decodeToJson(StructSchema, deep), (e: unknown) => e instanceof WireCodecError && e.kind === 'depth');
    assert.throws(() => decodeToJson(StructSchema, Buffer.from(deepStruct(20)), { maxDepth: 16 }), (e: unknown) => e instanceof WireCodecError && e.kind === 'depth');
    assert.deepStrictEqual(decodeToJson(StructSchema, Buffer.from(deepStruct(2))), { a: { a: null } });
  });

  test('refused: malformed bytes, unrepresentable values, JSON that does not fit', () => {
    const malformed = (bytes: number[]) => assert.throws(() => decodeToJson(TaskSchema, Buffer.from(bytes)), (e: unknown) => e instanceof WireCodecError && e.malformed);
    malformed([0x0a, 0x05, 0x61]); // a string longer than the message
    malformed([0x0a]); // a tag without a value
    malformed([0x0b]); // a group start
    malformed([0x08, 0x01]); // Task.id with the varint wire type
    const badTimestamp = Buffer.from([0x1a, 0x09, 0x1a, 0x07, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]); // status.timestamp.seconds = 2^40
    assert.throws(() => decodeToJson(TaskSchema, badTimestamp), (e: unknown) => e instanceof WireCodecError && !e.malformed && e.path === 'status.timestamp');
    assert.throws(() => decodeToJson(PartSchema, Buffer.from([0x22, 0x00])), (e: unknown) => e instanceof WireCodecError && e.path === 'data');
    // Strings are UTF-8: bad bytes are refused at their path, while a real U+FFFD (EF BF BD) is data.
    const notUtf8 = (bytes: number[], path: string) => assert.throws(() => decodeToJson(TaskSchema, Buffer.from(bytes)), (e: unknown) => e instanceof WireCodecError && !e.malformed && e.path === path);
    notUtf8([0x0a, 0x03, 0x61, 0xff, 0xfe], 'id');
    notUtf8([0x2a, 0x05, 0x0a, 0x03, 0xc3, 0x28, 0x61], 'history[0].messageId');
    notUtf8([0x0a, 0x03, 0xed, 0xa0, 0x80], 'id'); // an encoded lone surrogate
    assert.deepStrictEqual(decodeToJson(TaskSchema, Buffer.from([0x0a, 0x04, 0x61, 0xef, 0xbf, 0xbd])), { id: 'a\ufffd' });
    const nan = Buffer.alloc(9);
    nan[0] = 0x11;
    nan.writeDoubleLE(Number.NaN, 1);
    assert.throws(() => decodeToJson(PartSchema, Buffer.from([0x22, 0x09, ...nan])), (e: unknown) => e instanceof WireCodecError && e.path === 'data');
    for (const [json, path] of [
      [{ id: 5 }, 'id'],
      [{ status: { state: 'TASK_STATE_NOPE' } }, 'status.state'],
      [{ status: { timestamp: 'yesterday' } }, 'status.timestamp'],
      [{ status: { timestamp: '2026-02-30T00:00:00Z' } }, 'status.timestamp'],
      [{ artifacts: {} }, 'artifacts'],
      [{ history: [{ parts: [{ text: 'a', url: 'b' }] }] }, 'history[0].parts[0]'],
      [{ metadata: [] }, 'metadata'],
      [{ history: [{ parts: [{ raw: 'not base64!' }] }] }, 'history[0].parts[0].raw'],
      [{ id: '\ud800' }, 'id'],
    ] as const) {
      assert.throws(() => encodeJson(TaskSchema, json), (e: unknown) => e instanceof WireCodecError && e.path === path, JSON.stringify(json));
    }
  });
});
