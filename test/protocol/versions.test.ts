/**
 * R20: version negotiation, one table run over every binding (VER-01..06, B1..B5).
 * The operations called here are 1.0 ones (1.0 method names / paths / service), so an absent
 * A2A-Version (= 0.3, VER-05) is refused on every binding: where 0.3 is not served, because
 * of the version; where 0.3 compat serves it (issue 9, on by default: JSON-RPC, HTTP+JSON and the
 * gRPC listener's 0.3 service), because a 1.0 request must say A2A-Version: 1.0 (strict,
 * docs/compat.md) — the refusal then lists 0.3 as supported, on every binding alike.
 * 0.3 requests themselves are tested in test/compat/server*.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BINDINGS, type CallOptions, type Json, type TestBinding } from '../support/bindings.js';
import { startServer, type TestServer } from '../support/server.js';
import { expectError, ok, send } from '../support/assertions.js';

/** The versions each binding reports as served (0.3 compat is on by default). */
const SUPPORTED: Record<string, string> = { JSONRPC: '1.0,0.3', 'HTTP+JSON': '1.0,0.3', GRPC: '1.0,0.3' };

interface Row {
  name: string;
  opts: CallOptions;
  /** undefined: served; otherwise the requestedVersion reported in ErrorInfo.metadata. */
  refused?: string;
}

const TABLE: Row[] = [
  { name: 'A2A-Version: 1.0 is served', opts: {} },
  { name: 'VER-01 A2A-Version: 1.0.7 is served (patch ignored)', opts: { headers: { 'A2A-Version': '1.0.7' } } },
  { name: 'VER-03 query parameter ?A2A-Version=1.0 is served', opts: { headers: { 'A2A-Version': null }, query: { 'A2A-Version': '1.0' } } },
  { name: 'B5 the header wins over the query (header 1.0, query 2.0)', opts: { query: { 'A2A-Version': '2.0' } } },
  { name: 'B5 the header wins over the query (header 2.0, query 1.0)', opts: { headers: { 'A2A-Version': '2.0' }, query: { 'A2A-Version': '1.0' } }, refused: '2.0' },
  { name: 'VER-05 B1 absent means 0.3, which is not served', opts: { headers: { 'A2A-Version': null } }, refused: '0.3' },
  { name: 'VER-05 an empty header means 0.3', opts: { headers: { 'A2A-Version': '' } }, refused: '0.3' },
  { name: 'VER-06 0.3 is not served', opts: { headers: { 'A2A-Version': '0.3' } }, refused: '0.3' },
  { name: 'VER-06 2.0 is not served', opts: { headers: { 'A2A-Version': '2.0' } }, refused: '2.0' },
  { name: 'VER-06 1.1 is not served', opts: { headers: { 'A2A-Version': '1.1' } }, refused: '1.1' },
  { name: 'B2 a malformed version (abc) is VERSION_NOT_SUPPORTED', opts: { headers: { 'A2A-Version': 'abc' } }, refused: 'abc' },
  { name: 'B2 a malformed version (1) is VERSION_NOT_SUPPORTED', opts: { headers: { 'A2A-Version': '1' } }, refused: '1' },
  { name: 'SVC-03 a repeated header, comma-joined (1.0, 1.0), is served', opts: { headers: { 'A2A-Version': '1.0, 1.0' } } },
  { name: 'SVC-03 two different versions (1.0, 2.0) are VERSION_NOT_SUPPORTED', opts: { headers: { 'A2A-Version': '1.0, 2.0' } }, refused: '1.0, 2.0' },
  { name: 'B2 a malformed query version is VERSION_NOT_SUPPORTED', opts: { headers: { 'A2A-Version': null }, query: { 'A2A-Version': 'v1' } }, refused: 'v1' },
];

describe('R20 version negotiation over every binding', { concurrency: true }, () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  for (const factory of BINDINGS) {
    describe(factory.name, () => {
      let b: TestBinding;
      before(() => {
        b = factory.create(server);
      });

      for (const row of TABLE) {
        // gRPC has no query string: VER-03 (?A2A-Version=) is an HTTP-only form.
        const skip = factory.name === 'GRPC' && row.opts.query !== undefined ? 'no query parameters in gRPC' : false;
        test(row.name, { skip }, async () => {
          const unary = await b.call('listTasks', { pageSize: 1 }, row.opts);
          const streamed = await b.stream('sendStreamingMessage', send('msg versioned'), row.opts);
          if (row.refused === undefined) {
            assert.equal(ok(unary).pageSize, 1);
            assert.equal(unary.headers.get('a2a-version'), '1.0', 'B4: the negotiated version is echoed');
            assert.ok(streamed.ok, 'the streaming call is served too');
            assert.equal(streamed.events[0]?.event.message.role, 'ROLE_AGENT');
            return;
          }
          for (const res of [unary, streamed]) {
            expectError(res, 'VERSION_NOT_SUPPORTED', { metadata: { supportedVersions: SUPPORTED[factory.name] as string, requestedVersion: row.refused } });
            assert.ok(!res.contentType.startsWith('text/event-stream'), 'STREAM-12: a plain error, not SSE');
          }
        });
      }

      test('VER-06 the version is checked before the operation runs (nothing is created)', async () => {
        const contextId = `ctx-version-${factory.name}`;
        expectError(await b.call('sendMessage', send('hi', { contextId }), { headers: { 'A2A-Version': '0.3' } }), 'VERSION_NOT_SUPPORTED');
        assert.equal(ok(await b.call('listTasks', { contextId })).totalSize, 0);
      });
    });
  }
});

describe('R20 VER-05 the error format follows the version asked for: only none (or empty) or 0.3 gets the 0.3 format', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  /** Errors raised before the method is known (parse, envelope) and after (unknown method). */
  const BODIES = ['not json', '{"jsonrpc":"2.0","method":"GetTask"}', '{"jsonrpc":"2.0","id":1,"method":"Nope","params":{}}'];

  async function rpcError(body: string, version: { header?: string; query?: string }): Promise<{ code: number; data: unknown }> {
    const url = version.query === undefined ? server.jsonRpcUrl : `${server.jsonRpcUrl}?A2A-Version=${encodeURIComponent(version.query)}`;
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(version.header === undefined ? {} : { 'a2a-version': version.header }) }, body });
    return ((await res.json()) as { error: { code: number; data: unknown } }).error;
  }

  for (const version of [{ header: '1' }, { header: '1.0, 0.3' }, { header: '1.0,0.3' }, { header: 'abc' }, { query: '1' }, { header: '2.0' }]) {
    test(`JSON-RPC with a malformed or conflicting version (${JSON.stringify(version)}): the 1.0 format, with ErrorInfo`, async () => {
      for (const body of BODIES) {
        const error = await rpcError(body, version);
        assert.ok(Array.isArray(error.data), `${body}: ${JSON.stringify(error)}`);
        assert.ok((error.data as { '@type': string }[]).some((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo'), body);
      }
    });
  }

  for (const version of [{}, { header: '' }, { header: '0.3' }, { header: '0.3, 0.3' }, { query: '0.3' }]) {
    test(`JSON-RPC with ${JSON.stringify(version)}: the 0.3 format (data with reason)`, async () => {
      for (const body of BODIES) {
        const error = await rpcError(body, version);
        assert.ok(!Array.isArray(error.data) && typeof (error.data as { reason?: string }).reason === 'string', `${body}: ${JSON.stringify(error)}`);
      }
    });
  }

  test('REST: a 0.3 path with "0.3, 0.3" is served as 0.3; with "1.0, 0.3" or "1" refused in the 1.0 format', async () => {
    const get = async (header: string) => {
      const res = await fetch(`${server.restUrl}/v1/tasks/nope`, { headers: { 'a2a-version': header } });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const v03 = await get('0.3, 0.3');
    assert.equal(v03.status, 404);
    assert.equal(v03.body.code, -32001, JSON.stringify(v03.body));
    for (const header of ['1.0, 0.3', '1.0,0.3', '1']) {
      const v10 = await get(header);
      assert.equal(v10.status, 400, header);
      assert.equal(v10.body.error.details[0].reason, 'VERSION_NOT_SUPPORTED', JSON.stringify(v10.body));
    }
  });
});
