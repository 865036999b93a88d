/**
 * gRPC rows 6-7: the load (`runGrpc`: the lean HTTP/2 client of h2Load.ts, `concurrency`
 * calls in flight back to back on one HTTP/2 connection) and the @grpc/grpc-js client that
 * sends the one deeply checked request per server before it (`GrpcLoadClient`). Messages are
 * built with our generated protobuf-es code (src/gen/a2a_pb.ts) and sent as raw bytes, so the
 * client side costs the same whatever server answers.
 */
import { fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import { SendMessageRequestSchema, SendMessageResponseSchema, StreamResponseSchema } from '../src/gen/a2a_pb.js';
import { RequestTemplate, type H2GrpcClient } from './h2Load.js';
import { closedLoop, type Measurement } from './load.js';

const SERVICE = '/lf.a2a.v1.A2AService';
const identity = (b: Buffer): Buffer => b;

/** A SendMessageRequest with a fresh message id (or `messageId`), as bytes. */
export function sendRequest(text: string, messageId: string = crypto.randomUUID()): Buffer {
  const json = { message: { messageId, role: 'ROLE_USER', parts: [{ text }] } };
  return Buffer.from(toBinary(SendMessageRequestSchema, fromJson(SendMessageRequestSchema, json)));
}

export class GrpcLoadClient {
  private readonly client: Client;
  private readonly metadata = new Metadata();

  constructor(address: string) {
    this.client = new Client(address, credentials.createInsecure());
    this.metadata.set('a2a-version', '1.0');
  }

  unary(request: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(`${SERVICE}/SendMessage`, identity, identity, request, this.metadata, {}, (error, value) => (error || !value ? reject(error ?? new Error('empty answer')) : resolve(value)));
    });
  }

  stream(request: Buffer): Promise<Buffer[]> {
    return new Promise((resolve, reject) => {
      const call = this.client.makeServerStreamRequest(`${SERVICE}/SendStreamingMessage`, identity, identity, request, this.metadata, {});
      const events: Buffer[] = [];
      call.on('data', (b: Buffer) => events.push(b));
      call.on('error', reject);
      call.on('end', () => resolve(events));
    });
  }

  close(): void {
    this.client.close();
  }
}

/* eslint-disable @typescript-eslint/no-explicit-any */
/** Decodes a SendMessageResponse to its proto-JSON form (for checking a sample). */
export const unaryJson = (b: Buffer): any => toJson(SendMessageResponseSchema, fromBinary(SendMessageResponseSchema, b));
export const streamJson = (events: Buffer[]): any[] => events.map((b) => toJson(StreamResponseSchema, fromBinary(StreamResponseSchema, b)));

export interface GrpcLoad {
  client: H2GrpcClient;
  streaming: boolean;
  text: string;
  concurrency: number;
  duration: number;
  /** Streams: messages every stream must deliver. */
  expectedEvents: number;
}

/**
 * Keeps `concurrency` calls in flight for `duration` seconds; rate is calls/s (streams: events/s).
 * `extra.clientCpuUsPerCall`: the CPU this process (the load client) used per call.
 */
export async function runGrpc(load: GrpcLoad): Promise<Measurement> {
  const id = crypto.randomUUID();
  const template = new RequestTemplate(`${SERVICE}/${load.streaming ? 'SendStreamingMessage' : 'SendMessage'}`, sendRequest(load.text, id), id);
  const expected = load.streaming ? load.expectedEvents : 1;
  const cpu = process.cpuUsage();
  const { seconds, ...m } = await closedLoop({
    concurrency: load.concurrency,
    duration: load.duration,
    call: () => load.client.call(template, expected),
  });
  const used = process.cpuUsage(cpu);
  return { ...m, extra: { callsPerSec: m.count / seconds, clientCpuUsPerCall: (used.user + used.system) / m.count } };
}
