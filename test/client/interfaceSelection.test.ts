/**
 * Interface choice (CARD-05): the server's order among usable bindings, plugged-in transports;
 * across protocol versions (issue 9, CARD-05, VER-01, VER-09): 1.0 interfaces
 * first, then A2A 0.3 ones (served by the built-in JSONRPC and HTTP+JSON transports), the
 * card's order within a version, `bindings` narrowing the choice, `versions` pinning or
 * reordering; a plugged-in transport is chosen per binding AND version (a gRPC 0.3 factory
 * does not replace a gRPC 1.0 one, and replacing the built-in JSON-RPC 1.0 keeps its 0.3).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  A2AClientError,
  BUILTIN_TRANSPORTS,
  createClient,
  jsonRpcTransport,
  selectInterface,
  type AgentCard,
  type AgentInterface,
  type InterfacePreferences,
  type StreamItem,
  type Task,
  type TransportCall,
  type TransportFactory,
} from '../../src/client/index.js';

const card = (interfaces: AgentInterface[]): AgentCard => ({
  name: 'a',
  description: 'a',
  version: '1',
  capabilities: {},
  defaultInputModes: [],
  defaultOutputModes: [],
  skills: [],
  supportedInterfaces: interfaces,
});
const iface = (protocolBinding: string, protocolVersion: string): AgentInterface => ({ url: `https://a.example/${protocolBinding}/${protocolVersion}`, protocolBinding, protocolVersion });
const chosen = (c: AgentCard, transports: readonly TransportFactory[] = BUILTIN_TRANSPORTS, preferences?: readonly string[] | InterfacePreferences) => {
  const { agentInterface } = selectInterface(c, transports, preferences);
  return `${agentInterface.protocolBinding} ${agentInterface.protocolVersion}`;
};

/** A fake transport factory that answers getTask with a task naming the factory. */
function fake(binding: string, versions: string[], name: string): TransportFactory {
  return {
    binding,
    versions,
    create: () => ({
      async unary(call) {
        return { id: (call.request as { id: string }).id, status: { state: 'TASK_STATE_WORKING' }, metadata: { via: name } } as never;
      },
      async stream() {
        throw new Error('not used');
      },
    }),
  };
}

describe('CARD-05 interface selection across protocol versions', () => {
  test('1.0 before 0.3 whatever the card order; the card order among interfaces of one version (patch ignored, VER-01)', () => {
    assert.equal(chosen(card([iface('JSONRPC', '0.3'), iface('HTTP+JSON', '1.0.1')])), 'HTTP+JSON 1.0.1');
    assert.equal(chosen(card([iface('HTTP+JSON', '0.3'), iface('JSONRPC', '0.3.0')])), 'HTTP+JSON 0.3');
    assert.equal(chosen(card([iface('JSONRPC', '0.3.0'), iface('HTTP+JSON', '0.3')])), 'JSONRPC 0.3.0');
  });

  test('bindings narrows the choice, also down to a 0.3 interface', () => {
    const c = card([iface('JSONRPC', '1.0'), iface('HTTP+JSON', '0.3')]);
    assert.equal(chosen(c), 'JSONRPC 1.0');
    assert.equal(chosen(c, BUILTIN_TRANSPORTS, ['HTTP+JSON']), 'HTTP+JSON 0.3');
    assert.equal(chosen(c, BUILTIN_TRANSPORTS, { bindings: ['HTTP+JSON'] }), 'HTTP+JSON 0.3');
  });

  test('VER-09 versions pins (["1.0"]: no 0.3 interface) or reorders (["0.3", "1.0"])', () => {
    const c = card([iface('JSONRPC', '1.0'), iface('HTTP+JSON', '0.3')]);
    assert.equal(chosen(c, BUILTIN_TRANSPORTS, { versions: ['0.3', '1.0'] }), 'HTTP+JSON 0.3');
    assert.throws(
      () => chosen(c, BUILTIN_TRANSPORTS, { bindings: ['HTTP+JSON'], versions: ['1.0'] }),
      (e: unknown) => A2AClientError.is(e, 'NO_COMPATIBLE_INTERFACE') && /offers JSONRPC 1\.0, HTTP\+JSON 0\.3/.test(e.message) && /versions limited to 1\.0/.test(e.message),
    );
  });

  test('a user-supplied gRPC 0.3 factory is selected for a gRPC 0.3 interface, without replacing the gRPC 1.0 one', () => {
    const grpc10 = fake('GRPC', ['1.0'], 'grpc10');
    const grpc03 = fake('GRPC', ['0.3'], 'grpc03');
    const transports = [...BUILTIN_TRANSPORTS, grpc10, grpc03];
    assert.equal(selectInterface(card([iface('GRPC', '0.3')]), transports).factory, grpc03);
    assert.equal(selectInterface(card([iface('GRPC', '0.3'), iface('GRPC', '1.0')]), transports).factory, grpc10);
    // The card prefers gRPC 0.3 over JSON-RPC 1.0, but 1.0 comes first; bindings: ['GRPC'] picks it.
    const mixed = card([iface('GRPC', '0.3'), iface('JSONRPC', '1.0')]);
    assert.equal(selectInterface(mixed, transports).factory, jsonRpcTransport);
    assert.equal(selectInterface(mixed, transports, ['GRPC']).factory, grpc03);
    // Without a 0.3 factory for gRPC, nothing for that interface.
    assert.throws(() => selectInterface(card([iface('GRPC', '0.3')]), [...BUILTIN_TRANSPORTS, grpc10]), (e: unknown) => A2AClientError.is(e, 'NO_COMPATIBLE_INTERFACE'));
  });

  test('createClient routes the calls through the gRPC 0.3 factory passed in `transports`', async () => {
    const client = await createClient(card([iface('GRPC', '0.3')]), { transports: [fake('GRPC', ['0.3'], 'grpc03')] });
    assert.equal(client.agentInterface.protocolVersion, '0.3');
    const task: Task = await client.getTask({ id: 't1' });
    assert.deepEqual(task.metadata, { via: 'grpc03' });
  });

  test('a factory replacing the built-in JSON-RPC at 1.0 leaves its 0.3 transport in place', () => {
    const mine = fake('JSONRPC', ['1.0'], 'mine');
    const transports = [...BUILTIN_TRANSPORTS, mine];
    assert.equal(selectInterface(card([iface('JSONRPC', '1.0')]), transports).factory, mine);
    assert.equal(selectInterface(card([iface('JSONRPC', '0.3')]), transports).factory, jsonRpcTransport);
  });
});

describe('interface selection within one version', () => {
  const jsonrpc = (version = '1.0'): AgentInterface => ({ url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: version });
  const rest = (version = '1.0'): AgentInterface => ({ url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: version });
  const grpc: AgentInterface = { url: 'a.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' };

  test("the server's order among supported bindings and versions (patch ignored, VER-01)", () => {
    assert.equal(selectInterface(card([rest(), jsonrpc()]), BUILTIN_TRANSPORTS).agentInterface.protocolBinding, 'HTTP+JSON');
    assert.equal(selectInterface(card([grpc, jsonrpc('0.3'), rest('1.0.2')]), BUILTIN_TRANSPORTS).agentInterface.protocolVersion, '1.0.2');
    assert.equal(selectInterface(card([rest(), jsonrpc()]), BUILTIN_TRANSPORTS, ['JSONRPC']).agentInterface.protocolBinding, 'JSONRPC');
  });

  test('nothing usable: NO_COMPATIBLE_INTERFACE naming what was offered', () => {
    assert.throws(
      () => selectInterface(card([grpc, jsonrpc('0.2'), rest('2.0')]), BUILTIN_TRANSPORTS),
      (e: unknown) => A2AClientError.is(e, 'NO_COMPATIBLE_INTERFACE') && /GRPC 1\.0, JSONRPC 0\.2, HTTP\+JSON 2\.0/.test(e.message),
    );
  });

  test('a transport plugged in through options (e.g. gRPC) is used when the card prefers it', async () => {
    const calls: TransportCall[] = [];
    const fake: TransportFactory = {
      binding: 'GRPC',
      create: (agentInterface) => ({
        async unary(call) {
          calls.push(call);
          return { id: (call.request as { id: string }).id, status: { state: 'TASK_STATE_WORKING' }, url: agentInterface.url } as never;
        },
        async stream(call) {
          calls.push(call);
          return (async function* (): AsyncGenerator<StreamItem> {
            yield { event: { task: { id: 't', status: { state: 'TASK_STATE_COMPLETED' } } }, id: '1' };
          })();
        },
      }),
    };
    const withGrpc = card([{ ...grpc, tenant: 'acme' }, jsonrpc()]);
    const plain = await createClient(withGrpc);
    assert.equal(plain.agentInterface.protocolBinding, 'JSONRPC', 'without the transport the card falls back');
    const client = await createClient(withGrpc, { transports: [fake], extensions: ['urn:x'] });
    assert.equal(client.agentInterface.protocolBinding, 'GRPC');
    const task = await client.getTask({ id: 't1' });
    assert.deepEqual(task, { id: 't1', status: { state: 'TASK_STATE_WORKING' }, url: 'a.example:443' });
    const events = [];
    for await (const e of client.subscribeToTask({ id: 't' })) events.push(e);
    assert.equal(events.length, 1);
    assert.deepEqual(calls.map((c) => [c.op, (c.request as { tenant?: string }).tenant, c.headers.get('a2a-version'), c.headers.get('a2a-extensions')]), [
      ['getTask', 'acme', '1.0', 'urn:x'],
      ['subscribeToTask', 'acme', '1.0', 'urn:x'],
    ]);
  });
});