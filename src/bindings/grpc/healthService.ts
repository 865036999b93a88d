/**
 * The standard gRPC health checking protocol, `grpc.health.v1.Health`
 * (https://github.com/grpc/grpc/blob/master/doc/health-checking.md), over the server's one
 * readiness decision (ServerHealth): `Check` answers SERVING or NOT_SERVING for the whole server
 * ("") and for each A2A service on the port, NOT_FOUND for another name; `Watch` sends the
 * current status, then each change (NOT_SERVING as soon as draining starts), SERVICE_UNKNOWN for
 * an unknown name (the call stays open, as the protocol says), and ends at shutdown. Watch streams
 * are capped per connection and in all (healthWatchSlots.ts): RESOURCE_EXHAUSTED past a cap.
 * Check and Watch are not counted against the peer address's request rate (R25): behind a load
 * balancer every client shares one address, and a client spending that budget must not make the
 * instance look dead. The store check behind every answer is shared and briefly reused
 * (ServerHealth), so probes cost the store little however many arrive. The two
 * messages are small enough to be coded here with @bufbuild/protobuf's wire reader and writer:
 *   message HealthCheckRequest { string service = 1; }
 *   message HealthCheckResponse { ServingStatus status = 1; }  // UNKNOWN 0, SERVING 1, NOT_SERVING 2, SERVICE_UNKNOWN 3
 */
import { Metadata, status as grpcStatus, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type MethodDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { Readiness, ServerHealth } from '../../server/serverHealth.js';
import type { GrpcService } from './server.js';
import { toGrpcError } from './errors.js';
import { healthWatchSlots, type HealthWatchLimits } from './healthWatchSlots.js';
import { deadlinePassed, whenDeadlinePasses } from './deadline.js';

export const HEALTH_SERVICE_NAME = 'grpc.health.v1.Health';

/** HealthCheckResponse.ServingStatus. */
const SERVING = 1;
const NOT_SERVING = 2;
const SERVICE_UNKNOWN = 3;

type Bytes = Buffer;
const identity = (value: Bytes): Bytes => value;

export interface HealthServiceOptions {
  /** The names answered besides "" (the whole server). */
  services: readonly string[];
  /** Caps on open Watch streams (defaults: 100 per connection, 1,000 in all). */
  watches?: HealthWatchLimits | undefined;
}

export function createHealthService(health: ServerHealth, options: HealthServiceOptions): GrpcService {
  const known = new Set(['', ...options.services]);
  const watches = new Set<ServerWritableStream<Bytes, Bytes>>();
  const takeSlot = healthWatchSlots(options.watches);
  const method = (name: string, responseStream: boolean): MethodDefinition<Bytes, Bytes> => ({
    path: `/${HEALTH_SERVICE_NAME}/${name}`,
    requestStream: false,
    responseStream,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
    originalName: name,
  });
  const check = (call: ServerUnaryCall<Bytes, Bytes>, callback: sendUnaryData<Bytes>): void => {
    const service = requestedService(call.request);
    if (service === undefined) return callback({ code: grpcStatus.INVALID_ARGUMENT, details: 'Malformed HealthCheckRequest' });
    if (!known.has(service)) return callback({ code: grpcStatus.NOT_FOUND, details: 'Unknown service' });
    void health.readiness().then((readiness) => callback(null, response(statusOf(readiness))));
  };
  const watch = (call: ServerWritableStream<Bytes, Bytes>): void => {
    // A call whose deadline passed before it got here will never report 'cancelled' (deadline.ts): its slot would never come back.
    if (call.cancelled || deadlinePassed(call)) return;
    const service = requestedService(call.request);
    if (service === undefined) {
      call.destroy(Object.assign(new Error('Malformed HealthCheckRequest'), { code: grpcStatus.INVALID_ARGUMENT }));
      return;
    }
    let release: () => void;
    try {
      release = takeSlot(call.getPeer());
    } catch (error) {
      call.emit('error', toGrpcError(error));
      return;
    }
    watches.add(call);
    let stop = (): void => {};
    const ended = (): void => {
      release();
      stop();
      watches.delete(call);
      expiry?.clear();
    };
    // The slot is given back when the stream ends, however it ends: also at its deadline, which
    // the Watch watches itself, as a stream does (streamCall.ts): grpc-js's deadline timer can
    // run before the handler starts (a busy event loop fires it early against the wall clock)
    // and such a call never reports 'cancelled'.
    const expiry = whenDeadlinePasses(call, () => {
      ended();
      call.emit('error', { code: grpcStatus.DEADLINE_EXCEEDED, details: 'Deadline exceeded', metadata: new Metadata() });
    });
    call.once('cancelled', ended);
    call.once('close', ended);
    if (!known.has(service)) {
      call.write(response(SERVICE_UNKNOWN));
      return;
    }
    let sent = 0;
    const send = (readiness: Readiness) => {
      const status = statusOf(readiness);
      if (status === sent || !watches.has(call)) return;
      sent = status;
      call.write(response(status));
    };
    stop = health.watch(send);
    call.once('finish', stop);
    void health.readiness().then(send);
  };
  const implementation: UntypedServiceImplementation = { check, watch };
  return {
    definition: { check: method('Check', false), watch: method('Watch', true) },
    implementation,
    get openStreams() {
      return watches.size;
    },
    endStreams() {
      for (const call of [...watches]) {
        watches.delete(call);
        call.end();
      }
    },
  };
}

function statusOf(readiness: Readiness): number {
  return readiness.status === 'SERVING' ? SERVING : NOT_SERVING;
}

/** HealthCheckRequest.service, or undefined when the bytes are not such a message. */
function requestedService(bytes: Bytes): string | undefined {
  try {
    const reader = new BinaryReader(bytes);
    let service = '';
    while (reader.pos < reader.len) {
      const [field, wireType] = reader.tag();
      if (field === 1 && wireType === WireType.LengthDelimited) service = reader.string();
      else reader.skip(wireType, field);
    }
    return service;
  } catch {
    return undefined;
  }
}

function response(status: number): Bytes {
  return Buffer.from(new BinaryWriter().tag(1, WireType.Varint).int32(status).finish());
}
