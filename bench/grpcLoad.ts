/**
 * gRPC load generator: one @grpc/grpc-js client (one HTTP/2 connection) with `concurrency`
 * calls in flight back to back. Messages are built with our generated protobuf-es code
 * (src/gen/a2a_pb.ts) and sent as raw bytes (identity serializers), so the client side costs
 * the same whatever server answers.
 */
import { create, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import { SendMessageRequestSchema, SendMessageResponseSchema, StreamResponseSchema } from '../src/gen/a2a_pb.js';
import { closedLoop, type Measurement } from './load.js';

const SERVICE = '/lf.a2a.v1.A2AService';
const identity = (b: Buffer): Buffer => b;

/** A SendMessageRequest with a fresh message id, as bytes. */
export function sendRequest(text: string): Buffer {
  const json = { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } };
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
/** The empty message, so a zero-length unary answer can be told from a real one. */
export const EMPTY_RESPONSE_BYTES = toBinary(SendMessageResponseSchema, create(SendMessageResponseSchema)).length;

export interface GrpcLoad {
  client: GrpcLoadClient;
  streaming: boolean;
  text: string;
  concurrency: number;
  duration: number;
  /** Streams: messages every stream must deliver. */
  expectedEvents: number;
}

/** Keeps `concurrency` calls in flight for `duration` seconds; rate is calls/s (streams: events/s). */
export async function runGrpc(load: GrpcLoad): Promise<Measurement> {
  const { seconds, ...m } = await closedLoop({
    concurrency: load.concurrency,
    duration: load.duration,
    call: async () => {
      if (load.streaming) {
        const got = await load.client.stream(sendRequest(load.text));
        return { events: got.length, bad: got.length !== load.expectedEvents };
      }
      const answer = await load.client.unary(sendRequest(load.text));
      return { events: 1, bad: answer.length <= EMPTY_RESPONSE_BYTES };
    },
  });
  return { ...m, extra: { callsPerSec: m.count / seconds } };
}
