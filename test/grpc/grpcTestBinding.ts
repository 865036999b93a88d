/**
 * The gRPC implementation of the scenario suite's TestBinding (R21): each call goes over a real
 * HTTP/2 socket to `/lf.a2a.v1.A2AService/<Rpc>` with raw @grpc/grpc-js and the generated
 * protobuf-es schemas — not through src/bindings/grpc/client.ts — so the suite checks the
 * server's wire behaviour on its own. Responses are shown as the HTTP bindings write them
 * (ProtoJSON plus REQUIRED fields at their defaults, which protobuf cannot tell from absent). Service parameters travel as metadata (GRPC-02), errors
 * are read from the `grpc-status-details-bin` trailer (GRPC-03), and stream event ids come from
 * the `a2a-kit-first-event-id` response metadata (events of a stream are consecutive).
 *
 * The listener is started on first use, on the TestServer's own request handler, and closed
 * with the TestServer.
 */
import assert from 'node:assert/strict';
import { ScalarType, create, createRegistry, fromBinary, fromJson, getOption, toBinary, toJson, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf';
import { AnySchema, TimestampSchema } from '@bufbuild/protobuf/wkt';
import { Client, Metadata, credentials, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { A2AService } from '../../src/gen/a2a_pb.js';
import { BadRequestSchema, ErrorInfoSchema } from '../../src/gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../src/gen/google/rpc/status_pb.js';
import { FieldBehavior, field_behavior } from '../../src/gen/google/api/field_behavior_pb.js';
import { serveGrpc, type RunningGrpcServer, type ServeGrpcOptions } from '../../src/bindings/grpc/listener.js';
import type { OperationName } from '../../src/protocol/types.js';
// Types only: test/support/bindings.ts lists this binding in BINDINGS, so a value import would be a cycle.
import type { BindingFactory, CallOptions, CallResult, StreamEvent, StreamOptions, StreamResult, TestBinding, WireError } from '../support/bindings.js';
import type { TestServer } from '../support/server.js';

export const GRPC_CONTENT_TYPE = 'application/grpc';
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';
const FIRST_EVENT_ID = 'a2a-kit-first-event-id';
const STATUS_NAMES = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'];
const registry = createRegistry(ErrorInfoSchema, BadRequestSchema);
const identity = (b: Buffer): Buffer => b;

function methodOf(op: OperationName) {
  const m = A2AService.methods.find((x) => x.localName === op);
  if (!m) throw new Error(`no rpc for ${op}`);
  return { path: `/${A2AService.typeName}/${m.name}`, input: m.input, output: m.output };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Request JSON → protobuf. The suites also send values ProtoJSON cannot carry (an unknown enum
 * name, a timestamp that is not one); a protobuf client's equivalent is an unknown enum number
 * and an out-of-range Timestamp, which is what goes on the wire here.
 */
export function encodeLenient(desc: DescMessage, json: Record<string, unknown>): Message {
  const message = create(desc) as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(json)) {
    const field = desc.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field || value === undefined) continue;
    if (field.fieldKind === 'enum' && typeof value === 'string' && !field.enum.values.some((v) => v.name === value)) {
      message[field.localName] = 999;
    } else if (field.fieldKind === 'message' && field.message.typeName === TimestampSchema.typeName && typeof value === 'string' && Number.isNaN(Date.parse(value))) {
      message[field.localName] = create(TimestampSchema, { seconds: 999_999_999_999n });
    } else if (field.fieldKind === 'message' && !field.oneof && !field.message.typeName.startsWith('google.protobuf.') && isObject(value)) {
      message[field.localName] = encodeLenient(field.message, value);
    } else {
      const one = fromJson(desc, { [field.jsonName]: value } as JsonValue, { ignoreUnknownFields: true }) as unknown as Record<string, unknown>;
      const name = field.oneof ? field.oneof.localName : field.localName;
      message[name] = one[name];
    }
  }
  return message as unknown as Message;
}

/**
 * A response as the HTTP bindings show it: protobuf-es ProtoJSON, plus REQUIRED scalar and
 * repeated fields, and those of a `…Response` message, at their default (protobuf cannot tell
 * them from absent, e.g. `tasks: []`, `nextPageToken: ""`).
 */
function responseJson(desc: DescMessage, bytes: Buffer): unknown {
  const json = toJson(desc, fromBinary(desc, bytes)) as Record<string, unknown>;
  fillRequired(desc, json);
  return json;
}

function fillRequired(desc: DescMessage, json: Record<string, unknown>): void {
  for (const f of desc.fields) {
    const v = json[f.jsonName];
    if (v === undefined && !f.oneof && (desc.name.endsWith('Response') || getOption(f, field_behavior).includes(FieldBehavior.REQUIRED))) {
      if (f.fieldKind === 'list') json[f.jsonName] = [];
      else if (f.fieldKind === 'map') json[f.jsonName] = {};
      else if (f.fieldKind === 'scalar') json[f.jsonName] = f.scalar === ScalarType.BOOL ? false : f.scalar === ScalarType.STRING || f.scalar === ScalarType.BYTES ? '' : 0;
      else if (f.fieldKind === 'enum') json[f.jsonName] = f.enum.values[0]?.name;
      continue;
    }
    if (!f.message || f.message.typeName.startsWith('google.protobuf.') || v === undefined) continue;
    const items = f.fieldKind === 'list' ? (v as Record<string, unknown>[]) : f.fieldKind === 'map' ? Object.values(v as Record<string, Record<string, unknown>>) : [v as Record<string, unknown>];
    for (const item of items) fillRequired(f.message, item);
  }
}

function metadataFor(opts: CallOptions): Metadata {
  if (opts.query && Object.keys(opts.query).length > 0) {
    throw new Error('gRPC has no query parameters (VER-03 is an HTTP-only form); skip this case for GRPC');
  }
  const values = new Map<string, string>([['a2a-version', '1.0']]);
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === null) values.delete(k.toLowerCase());
    // As fetch's Headers do: HTTP/2 (RFC 9113 §8.2.1) drops values with outer whitespace.
    else values.set(k.toLowerCase(), v.trim());
  }
  const md = new Metadata();
  for (const [k, v] of values) md.set(k, v);
  return md;
}

function headersOf(md: Metadata | undefined): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(md?.getMap() ?? {})) if (typeof v === 'string') headers.set(k, v);
  return headers;
}

/** A failed call as a WireError, decoding google.rpc.Status from the trailer ourselves. */
export function wireError(e: Pick<StatusObject, 'code' | 'details' | 'metadata'>): WireError {
  const out: WireError = { reason: '', message: e.details, details: [], fieldViolations: [], metadata: {}, grpcStatus: STATUS_NAMES[e.code] ?? 'UNKNOWN', raw: e };
  const bin = e.metadata?.get('grpc-status-details-bin')[0];
  if (bin instanceof Buffer) {
    const status = fromBinary(StatusSchema, bin);
    assert.equal(status.code, e.code, 'google.rpc.Status.code equals the gRPC status');
    assert.equal(status.message, e.details, 'google.rpc.Status.message equals grpc-message');
    for (const any of status.details) {
      const d = toJson(AnySchema, any, { registry }) as Record<string, unknown>;
      out.details.push(d);
      if (d['@type'] === ERROR_INFO_TYPE) {
        out.reason = String(d.reason ?? '');
        if (typeof d.domain === 'string') out.domain = d.domain;
        if (isObject(d.metadata)) out.metadata = d.metadata as Record<string, string>;
      } else if (d['@type'] === BAD_REQUEST_TYPE && Array.isArray(d.fieldViolations)) {
        out.fieldViolations.push(...(d.fieldViolations as WireError['fieldViolations']));
      }
    }
  }
  return out;
}

function transport(md: Metadata | undefined) {
  return { headers: headersOf(md), status: 200, contentType: GRPC_CONTENT_TYPE };
}

export function grpcBinding(address: string | (() => Promise<string>)): TestBinding {
  let client: Client | undefined;
  const clientFor = async (): Promise<Client> => {
    client ??= new Client(typeof address === 'string' ? address : await address(), credentials.createInsecure());
    return client;
  };
  return {
    name: 'GRPC',
    async call(op, params, opts = {}): Promise<CallResult> {
      const m = methodOf(op);
      const body = Buffer.from(toBinary(m.input, encodeLenient(m.input, params as Record<string, unknown>)));
      const c = await clientFor();
      return new Promise((resolve) => {
        let headers: Metadata | undefined;
        const call = c.makeUnaryRequest<Buffer, Buffer>(m.path, identity, identity, body, metadataFor(opts), {}, (error: ServiceError | null, value?: Buffer) => {
          if (error) return resolve({ ok: false, error: wireError(error), ...transport(headers) });
          resolve({ ok: true, result: responseJson(m.output, value as Buffer), ...transport(headers) });
        });
        call.on('metadata', (md: Metadata) => (headers = md));
      });
    },
    async stream(op, params, opts: StreamOptions = {}): Promise<StreamResult> {
      const m = methodOf(op);
      const body = Buffer.from(toBinary(m.input, encodeLenient(m.input, params as Record<string, unknown>)));
      const c = await clientFor();
      const call = c.makeServerStreamRequest<Buffer, Buffer>(m.path, identity, identity, body, metadataFor(opts), {});
      const events: StreamEvent[] = [];
      let headers: Metadata | undefined;
      let first: number | undefined;
      const timeoutMs = opts.timeoutMs ?? 10_000;
      return new Promise<StreamResult>((resolve, reject) => {
        let done = false;
        const finish = (result: StreamResult | Error): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          if (result instanceof Error) reject(result);
          else resolve(result);
        };
        const timer = setTimeout(() => {
          call.cancel();
          if (!opts.allowTimeout) {
            finish(new Error(`stream did not end within ${timeoutMs} ms; events so far: ${JSON.stringify(events).slice(0, 2000)}`));
          } else {
            finish({ ok: true, events, ended: false, cut: false, timedOut: true, comments: [], ...transport(headers) });
          }
        }, timeoutMs);
        call.on('metadata', (md: Metadata) => {
          headers = md;
          const v = md.get(FIRST_EVENT_ID)[0];
          if (typeof v === 'string') first = Number(v);
        });
        call.on('data', (chunk: Buffer) => {
          if (done) return;
          const item: StreamEvent = { event: responseJson(m.output, chunk) };
          if (first !== undefined) item.id = String(first + events.length);
          events.push(item);
          opts.onEvent?.(item, events.length - 1);
          if (opts.maxEvents !== undefined && events.length >= opts.maxEvents) {
            call.cancel();
            finish({ ok: true, events, ended: false, cut: true, timedOut: false, comments: [], ...transport(headers) });
          }
        });
        call.on('error', (error: ServiceError) => {
          if (done) return;
          // STREAM-12: an error before any event is the call's answer; after events, B9.
          if (events.length === 0 && headers === undefined) finish({ ok: false, error: wireError(error), ...transport(headers) });
          else {
            events.push({ error: wireError(error) });
            finish({ ok: true, events, ended: true, cut: false, timedOut: false, comments: [], ...transport(headers) });
          }
        });
        call.on('end', () => finish({ ok: true, events, ended: true, cut: false, timedOut: false, comments: [], ...transport(headers) }));
      });
    },
  };
}

const listeners = new WeakMap<TestServer, Promise<RunningGrpcServer>>();

/** A gRPC listener beside the TestServer's HTTP one, on the same request handler (`options` on first use). */
export function grpcListener(server: TestServer, options: Pick<ServeGrpcOptions, 'compat03'> = {}): Promise<RunningGrpcServer> {
  let running = listeners.get(server);
  if (!running) {
    // Authentication as on the HTTP bindings: the HTTP handler's authenticator, shared (as serveAgent does).
    running = serveGrpc(server.handler.requestHandler, {
      port: 0,
      host: '127.0.0.1',
      shutdownTimeoutMs: 300,
      onError: (e) => server.errors.push(e),
      auth: () => server.handler.authenticator,
      ...options,
    });
    listeners.set(server, running);
    const close = server.close;
    server.close = async () => {
      await (await running)?.close();
      await close();
    };
  }
  return running;
}

export const grpcBindingFactory: BindingFactory = {
  name: 'GRPC',
  create: (server) => grpcBinding(async () => (await grpcListener(server)).address),
};
