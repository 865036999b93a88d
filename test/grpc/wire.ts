/**
 * Test helpers that look at the gRPC wire without the project's codec: raw calls with grpc-js
 * (bytes in, bytes out) and a hand-written protobuf reader for google.rpc.Status, ErrorInfo and
 * BadRequest, so the error trailer is checked against the googleapis field numbers themselves.
 */
import { Client, Metadata, credentials, type ServiceError, type StatusObject } from '@grpc/grpc-js';

const identity = (b: Buffer): Buffer => b;

export interface RawOutcome {
  code: number;
  details: string;
  trailers: Metadata;
  headers?: Metadata;
  /** Response messages (one for unary). */
  messages: Buffer[];
}

export function metadataOf(values: Record<string, string>): Metadata {
  const md = new Metadata();
  for (const [k, v] of Object.entries(values)) md.set(k, v);
  return md;
}

/** One call to `/lf.a2a.v1.A2AService/<rpc>` with raw bytes; resolves with the final status. */
export function rawCall(address: string, rpc: string, options: { body: Uint8Array; metadata?: Record<string, string>; stream?: boolean; deadlineMs?: number }): Promise<RawOutcome> {
  const client = new Client(address, credentials.createInsecure());
  const path = `/lf.a2a.v1.A2AService/${rpc}`;
  const md = metadataOf(options.metadata ?? { 'a2a-version': '1.0' });
  const callOptions = options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {};
  const body = Buffer.from(options.body);
  return new Promise((resolve) => {
    const out: RawOutcome = { code: -1, details: '', trailers: new Metadata(), messages: [] };
    const onStatus = (status: StatusObject): void => {
      out.code = status.code;
      out.details = status.details;
      out.trailers = status.metadata;
      client.close();
      resolve(out);
    };
    if (options.stream) {
      const call = client.makeServerStreamRequest<Buffer, Buffer>(path, identity, identity, body, md, callOptions);
      call.on('metadata', (h: Metadata) => (out.headers = h));
      call.on('data', (m: Buffer) => out.messages.push(m));
      call.on('error', () => undefined);
      call.on('status', onStatus);
    } else {
      const call = client.makeUnaryRequest<Buffer, Buffer>(path, identity, identity, body, md, callOptions, (_e: ServiceError | null, v?: Buffer) => {
        if (v) out.messages.push(v);
      });
      call.on('metadata', (h: Metadata) => (out.headers = h));
      call.on('status', onStatus);
    }
  });
}

type Field = { no: number; wire: number; varint?: bigint; bytes?: Uint8Array };

/** Protobuf wire format: tag varints, varint and length-delimited values (all these messages use). */
export function readFields(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = bytes[i++];
      if (b === undefined) throw new Error('truncated varint');
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (i < bytes.length) {
    const tag = Number(varint());
    const field: Field = { no: tag >>> 3, wire: tag & 7 };
    if (field.wire === 0) field.varint = varint();
    else if (field.wire === 2) {
      const len = Number(varint());
      field.bytes = bytes.subarray(i, i + len);
      i += len;
    } else throw new Error(`unexpected wire type ${field.wire}`);
    fields.push(field);
  }
  return fields;
}

const text = (b: Uint8Array | undefined): string => new TextDecoder().decode(b ?? new Uint8Array());

export interface HandDecodedStatus {
  code: number;
  message: string;
  details: { typeUrl: string; value: Uint8Array }[];
}

/** google.rpc.Status: 1 code (int32), 2 message, 3 details (Any: 1 type_url, 2 value). */
export function decodeStatusByHand(bytes: Uint8Array): HandDecodedStatus {
  const out: HandDecodedStatus = { code: 0, message: '', details: [] };
  for (const f of readFields(bytes)) {
    if (f.no === 1) out.code = Number(f.varint);
    else if (f.no === 2) out.message = text(f.bytes);
    else if (f.no === 3) {
      const any: { typeUrl: string; value: Uint8Array } = { typeUrl: '', value: new Uint8Array() };
      for (const a of readFields(f.bytes ?? new Uint8Array())) {
        if (a.no === 1) any.typeUrl = text(a.bytes);
        else if (a.no === 2) any.value = a.bytes ?? new Uint8Array();
      }
      out.details.push(any);
    }
  }
  return out;
}

/** google.rpc.ErrorInfo: 1 reason, 2 domain, 3 metadata (map entries: 1 key, 2 value). */
export function decodeErrorInfoByHand(bytes: Uint8Array): { reason: string; domain: string; metadata: Record<string, string> } {
  const out = { reason: '', domain: '', metadata: {} as Record<string, string> };
  for (const f of readFields(bytes)) {
    if (f.no === 1) out.reason = text(f.bytes);
    else if (f.no === 2) out.domain = text(f.bytes);
    else if (f.no === 3) {
      let key = '';
      let value = '';
      for (const e of readFields(f.bytes ?? new Uint8Array())) {
        if (e.no === 1) key = text(e.bytes);
        else if (e.no === 2) value = text(e.bytes);
      }
      out.metadata[key] = value;
    }
  }
  return out;
}

/** google.rpc.BadRequest: 1 field_violations (FieldViolation: 1 field, 2 description). */
export function decodeBadRequestByHand(bytes: Uint8Array): { field: string; description: string }[] {
  return readFields(bytes)
    .filter((f) => f.no === 1)
    .map((f) => {
      const v = { field: '', description: '' };
      for (const g of readFields(f.bytes ?? new Uint8Array())) {
        if (g.no === 1) v.field = text(g.bytes);
        else if (g.no === 2) v.description = text(g.bytes);
      }
      return v;
    });
}

export interface TrailerError {
  status: HandDecodedStatus;
  errorInfo?: ReturnType<typeof decodeErrorInfoByHand>;
  violations: { field: string; description: string }[];
}

/** Everything the `grpc-status-details-bin` trailer says, decoded by hand. */
export function trailerError(trailers: Metadata): TrailerError | undefined {
  const bin = trailers.get('grpc-status-details-bin')[0];
  if (!(bin instanceof Buffer)) return undefined;
  const status = decodeStatusByHand(bin);
  const out: TrailerError = { status, violations: [] };
  for (const d of status.details) {
    if (d.typeUrl === 'type.googleapis.com/google.rpc.ErrorInfo') out.errorInfo = decodeErrorInfoByHand(d.value);
    else if (d.typeUrl === 'type.googleapis.com/google.rpc.BadRequest') out.violations.push(...decodeBadRequestByHand(d.value));
  }
  return out;
}

function varintBytes(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** A google.protobuf.Struct nested `levels` deep ({"a": {"a": … null}}), built by hand (R16). */
export function deepStruct(levels: number): Uint8Array {
  let value = [0x08, 0x00]; // Value{null_value}
  let struct: number[] = [];
  for (let i = 0; i < levels; i++) {
    const entry = [0x0a, 1, 0x61, 0x12, ...varintBytes(value.length), ...value];
    struct = [0x0a, ...varintBytes(entry.length), ...entry];
    value = [0x2a, ...varintBytes(struct.length), ...struct];
  }
  return Uint8Array.from(struct);
}

/** Field `no` of a message, length-delimited, holding `bytes`. */
export function lengthDelimited(no: number, bytes: Uint8Array): Uint8Array {
  return Uint8Array.from([(no << 3) | 2, ...varintBytes(bytes.length), ...bytes]);
}
