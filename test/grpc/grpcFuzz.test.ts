/**
 * R19 for gRPC (issue 8): a seeded mutation fuzz of ≥ 10,000 calls to every method, sent as raw
 * bytes through a grpc-js client with passthrough serializers (no project codec on the client).
 * The bodies start from a valid request per operation (the seeds the JSON-RPC and REST fuzz
 * use), get the shared structural mutator (test/support/fuzz.ts) when protobuf can still carry
 * the result, then byte-level damage (truncation, flipped bytes, wrong wire types, huge length
 * prefixes, unknown fields, overlong varints, deep Structs), are sometimes sent to another method,
 * and carry mutated metadata (A2A-Version, A2A-Extensions, authorization, binary headers).
 * Every call must end with a proper status: OK with decodable responses, or INVALID_ARGUMENT /
 * NOT_FOUND / FAILED_PRECONDITION / UNIMPLEMENTED / RESOURCE_EXHAUSTED whose
 * grpc-status-details-bin (when present) decodes with the googleapis field numbers to the same
 * code and message plus an ErrorInfo — never INTERNAL/UNKNOWN, a stack, a hang or a crash.
 * FUZZ_SEED / FUZZ_COUNT as in the JSON-RPC fuzz.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fromBinary, fromJson, toBinary, type DescMessage } from '@bufbuild/protobuf';
import { Client, Metadata, credentials, status as grpcStatus, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { A2AService } from '../../src/gen/a2a_pb.js';
import { isKnownReason } from '../../src/protocol/errorTable.js';
import {
  FUZZ_STRINGS,
  STACK_PATTERN,
  assertReached,
  fuzzCount,
  fuzzSeed,
  int,
  mutateBytes,
  mutateValue,
  pick,
  runFuzz,
  seedRequests,
  withFreshMessageId,
  type Json,
  type Random,
} from '../support/fuzz.js';
import { deepStruct, lengthDelimited, trailerError } from './wire.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

const SEED = fuzzSeed(0x6e9c);
const COUNT = fuzzCount(10_000);
const SERVICE = A2AService.typeName;
const METHODS = new Map(A2AService.methods.map((m) => [m.name, m]));
const STATUS_NAME = Object.fromEntries(Object.entries(grpcStatus).map(([k, v]) => [v, k])) as Record<number, string>;
/** The statuses a fuzzed request may end with. */
const ACCEPTED = new Set<number>([grpcStatus.OK, grpcStatus.INVALID_ARGUMENT, grpcStatus.NOT_FOUND, grpcStatus.FAILED_PRECONDITION, grpcStatus.UNIMPLEMENTED, grpcStatus.RESOURCE_EXHAUSTED]);

interface GrpcRequest {
  rpc: string;
  body: Uint8Array;
  metadata: [string, string | Buffer][];
  /** How the body was made, for the failure message. */
  how: string[];
}

interface GrpcAnswer {
  status: StatusObject;
  messages: Buffer[];
}

const VERSIONS = ['1.0', '0.3', '2.0', 'abc', '', '1.0, 2.0', '1', '1.0.0', '9'.repeat(300)];
const TEXT_VALUES = ['', 'garbage', 'https://x.example/ext, ,,', 'Bearer', 'Bearer x.y.z', 'Basic Zm9vOmJhcg==', 'a'.repeat(2000), '__proto__', '{"a":1}'];

/** Protobuf bytes for a request JSON, or undefined when protobuf cannot carry it. */
function encode(desc: DescMessage, json: Json): Uint8Array | undefined {
  try {
    return toBinary(desc, fromJson(desc, json, { ignoreUnknownFields: true }));
  } catch {
    return undefined;
  }
}

function generate(corpus: ReturnType<typeof seedRequests>, random: Random): GrpcRequest {
  const seed = withFreshMessageId(pick(random, corpus), random);
  const method = METHODS.get(seed.method)!;
  const how: string[] = [seed.method];
  const valid = encode(method.input, seed.params ?? {}) as Uint8Array;
  let body = valid;
  if (random() < 0.6) {
    const mutated = encode(method.input, mutateValue(seed.params ?? {}, random));
    if (mutated) {
      body = mutated;
      how.push('structural');
    }
  }
  const r = random();
  if (r < 0.7) {
    body = mutateBytes(body, random);
    how.push('bytes');
  } else if (r < 0.78) {
    // A google.protobuf.Struct 20–60 levels deep as SendMessageRequest.metadata (field 4) (R16),
    // or appended to whatever message this is.
    body = Uint8Array.from([...body, ...lengthDelimited(4, deepStruct(20 + int(random, 41)))]);
    how.push('deepStruct');
  } else if (r < 0.82) {
    body = pick(random, [new Uint8Array(), Uint8Array.from(Array.from({ length: 1 + int(random, 64) }, () => int(random, 256))), Uint8Array.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x0f])]);
    how.push('garbage');
  }
  let rpc = method.name;
  if (random() < 0.06) {
    rpc = pick(random, [...METHODS.keys(), 'NoSuchMethod', 'sendMessage']);
    how.push(`sent to ${rpc}`);
  }
  const metadata: [string, string | Buffer][] = [['a2a-version', '1.0']];
  if (random() < 0.3) {
    switch (int(random, 6)) {
      case 0:
        metadata.splice(0, 1);
        break;
      case 1:
        metadata[0] = ['a2a-version', pick(random, VERSIONS)];
        break;
      case 2:
        metadata.push(['a2a-extensions', pick(random, TEXT_VALUES)]);
        break;
      case 3:
        metadata.push(['authorization', pick(random, TEXT_VALUES)]);
        break;
      case 4:
        metadata.push([pick(random, ['x-fuzz-bin', 'a2a-version-bin', 'grpc-status-details-bin']), Buffer.from(Array.from({ length: int(random, 40) }, () => int(random, 256)))]);
        break;
      default:
        metadata.push(['a2a-version', pick(random, VERSIONS)], [pick(random, ['a2a-extensions', 'x-a2a-tenant', 'x-forwarded-for']), pick(random, FUZZ_STRINGS.filter((s) => /^[\x20-\x7e]*$/.test(s)))]);
    }
    how.push('metadata');
  }
  return { rpc, body, metadata, how };
}

const identity = (b: Buffer): Buffer => b;

function call(client: Client, r: GrpcRequest): Promise<GrpcAnswer> {
  const path = `/${SERVICE}/${r.rpc}`;
  const md = new Metadata();
  for (const [k, v] of r.metadata) md.add(k, v);
  const options = { deadline: Date.now() + 8000 };
  const streaming = METHODS.get(r.rpc)?.methodKind === 'server_streaming';
  return new Promise((resolve) => {
    const messages: Buffer[] = [];
    const done = (status: StatusObject) => resolve({ status, messages });
    if (streaming) {
      const c = client.makeServerStreamRequest<Buffer, Buffer>(path, identity, identity, Buffer.from(r.body), md, options);
      c.on('data', (m: Buffer) => messages.push(m));
      c.on('error', () => undefined);
      c.on('status', done);
    } else {
      const c = client.makeUnaryRequest<Buffer, Buffer>(path, identity, identity, Buffer.from(r.body), md, options, (_e: ServiceError | null, v?: Buffer) => {
        if (v) messages.push(v);
      });
      c.on('status', done);
    }
  });
}

function problem(r: GrpcRequest, a: GrpcAnswer): string | undefined {
  const { code, details, metadata } = a.status;
  if (!ACCEPTED.has(code)) return `status ${STATUS_NAME[code]} (${code}): ${details}`;
  if (STACK_PATTERN.test(details)) return `stack in details: ${details}`;
  const method = METHODS.get(r.rpc);
  if (code === grpcStatus.OK) {
    if (!method) return 'OK from an unknown method';
    if (method.methodKind !== 'server_streaming' && a.messages.length !== 1) return `unary OK with ${a.messages.length} messages`;
    if (a.messages.length === 0) return 'a stream ended OK without events';
    for (const m of a.messages) {
      try {
        fromBinary(method.output, m);
      } catch (error) {
        return `response does not decode as ${method.output.typeName}: ${(error as Error).message}`;
      }
    }
    return undefined;
  }
  if (metadata.get('grpc-status-details-bin').length === 0) {
    // grpc-js itself answers an unknown method (UNIMPLEMENTED) without details.
    return code === grpcStatus.UNIMPLEMENTED && !method ? undefined : `${STATUS_NAME[code]} without grpc-status-details-bin: ${details}`;
  }
  let decoded;
  try {
    decoded = trailerError(metadata);
  } catch (error) {
    return `grpc-status-details-bin does not decode: ${(error as Error).message}`;
  }
  if (!decoded) return 'grpc-status-details-bin is not binary';
  if (decoded.status.code !== code) return `details code ${decoded.status.code} ≠ status ${code}`;
  if (decoded.status.message !== details) return `details message ${JSON.stringify(decoded.status.message)} ≠ ${JSON.stringify(details)}`;
  if (!decoded.errorInfo || !isKnownReason(decoded.errorInfo.reason)) return `no ErrorInfo with a known reason: ${JSON.stringify(decoded.errorInfo)}`;
  return undefined;
}

function classify(a: GrpcAnswer): string {
  if (a.status.code === grpcStatus.OK) return a.messages.length > 1 ? 'OK stream' : 'OK';
  const info = trailerError(a.status.metadata)?.errorInfo;
  return `${STATUS_NAME[a.status.code]}${info ? ` ${info.reason}` : ''}`;
}

const show = (r: GrpcRequest) =>
  `${r.rpc} (${r.how.join(' + ')})\nbody (${r.body.length} bytes): ${Buffer.from(r.body).toString('hex').slice(0, 600)}\nmetadata: ${JSON.stringify(r.metadata.map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, 100) : `0x${v.toString('hex')}`]))}`;

describe('R19 seeded mutation fuzz of gRPC calls (raw bytes, every method)', () => {
  let server: GrpcTestServer;
  let client: Client;
  let corpus: ReturnType<typeof seedRequests>;
  let taskId: string;
  const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
  before(async () => {
    server = await startGrpcServer({ demo: { slowMs: 50, tickMs: 10 } });
    client = new Client(server.address, credentials.createInsecure());
    const seedBody = encode(METHODS.get('SendMessage')!.input, { message: { messageId: 'grpc-fuzz-seed', role: 'ROLE_USER', parts: [{ text: 'hi seed' }] } })!;
    const first = await call(client, { rpc: 'SendMessage', body: seedBody, metadata: [['a2a-version', '1.0']], how: [] });
    assert.equal(first.status.code, grpcStatus.OK, first.status.details);
    const task = (fromBinary(METHODS.get('SendMessage')!.output, first.messages[0]!) as Json).payload.value;
    taskId = task.id;
    corpus = seedRequests(task.id, task.contextId);
    for (const seed of corpus) {
      const r: GrpcRequest = { rpc: seed.method, body: encode(METHODS.get(seed.method)!.input, seed.params ?? {})!, metadata: [['a2a-version', '1.0']], how: ['seed'] };
      assert.ok(r.body, `seed ${seed.method} encodes`);
      const a = await call(client, r);
      assert.equal(problem(r, a), undefined, show(r));
    }
  });
  after(async () => {
    client.close();
    await server.close();
  });

  test(`${COUNT} mutated calls: a proper status every time (seed ${SEED})`, async (t) => {
    const outcomes = await runFuzz<GrpcRequest, GrpcAnswer>({
      name: 'grpc',
      seed: SEED,
      count: COUNT,
      concurrency: 32,
      timeoutMs: 10_000,
      generate: (random) => generate(corpus, random),
      send: (r) => call(client, r),
      check: (r, a) => {
        const p = problem(r, a);
        return p && `${p}\nanswer: ${STATUS_NAME[a.status.code]} ${JSON.stringify(a.status.details)} (${a.messages.length} messages)`;
      },
      classify,
      show,
    });
    t.diagnostic(`seed ${SEED}, outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    assertReached(outcomes, ['OK', 'OK stream', 'INVALID_ARGUMENT PARSE_ERROR', 'INVALID_ARGUMENT INVALID_PARAMS', 'NOT_FOUND TASK_NOT_FOUND', 'FAILED_PRECONDITION VERSION_NOT_SUPPORTED']);
  });

  test('the listener still serves GetTask, reported no internal error, and no prototype changed', async () => {
    const r: GrpcRequest = { rpc: 'GetTask', body: encode(METHODS.get('GetTask')!.input, { id: taskId })!, metadata: [['a2a-version', '1.0']], how: ['final'] };
    const a = await call(client, r);
    assert.equal(a.status.code, grpcStatus.OK, a.status.details);
    assert.equal((fromBinary(METHODS.get('GetTask')!.output, a.messages[0]!) as Json).id, taskId);
    assert.deepEqual(server.errors, []);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoKeys);
    assert.equal(({} as Json).polluted, undefined);
  });
});
