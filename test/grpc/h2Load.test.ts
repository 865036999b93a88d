/**
 * The lean HTTP/2 load client of the gRPC bench rows (bench/h2Load.ts): its HPACK decoder
 * against the examples of RFC 7541 (Huffman strings, dynamic table), and its cheap checks
 * against a real serveGrpc server (a good answer passes, a wrong one is counted as bad).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { H2GrpcClient, HpackDecoder, RequestTemplate } from '../../bench/h2Load.js';
import { sendRequest } from '../../bench/grpcLoad.js';
import { startGrpcServer, type GrpcTestServer } from './support.js';

function decodeAll(decoder: HpackDecoder, hex: string): [string, string][] {
  const out: [string, string][] = [];
  decoder.decode(Buffer.from(hex.replace(/\s/g, ''), 'hex'), { header: (name, value) => out.push([name, value]) });
  return out;
}

describe('bench/h2Load.ts: the lean gRPC load client', () => {
  test('HPACK: RFC 7541 C.4, requests with Huffman coding, one decoder (dynamic table) for all three', () => {
    const d = new HpackDecoder();
    const base: [string, string][] = [
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
    ];
    assert.deepEqual(decodeAll(d, '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff'), base);
    assert.deepEqual(decodeAll(d, '8286 84be 5886 a8eb 1064 9cbf'), [...base, ['cache-control', 'no-cache']]);
    assert.deepEqual(decodeAll(d, '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'), [
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/index.html'],
      [':authority', 'www.example.com'],
      ['custom-key', 'custom-value'],
    ]);
    assert.throws(() => decodeAll(new HpackDecoder(), 'be'), /no table entry/);
  });

  describe('against serveGrpc', () => {
    let server: GrpcTestServer;
    let client: H2GrpcClient;
    before(async () => {
      server = await startGrpcServer();
      client = new H2GrpcClient(server.address);
    });
    after(async () => {
      client.close();
      await server.close();
    });

    const template = (rpc: string, text: string) => {
      const id = crypto.randomUUID();
      return new RequestTemplate(`/lf.a2a.v1.A2AService/${rpc}`, sendRequest(text, id), id);
    };

    test('unary and streaming calls pass the checks, each with a fresh message id', async () => {
      const unary = template('SendMessage', 'hi');
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => client.call(unary, 1)));
      assert.deepEqual(new Set(outcomes.map((o) => JSON.stringify(o))), new Set([JSON.stringify({ events: 1, non2xx: false, bad: false })]));
      const listed = await server.handler.unary('listTasks', { pageSize: 100 }, { protocolVersion: '1.0', requestedExtensions: [] });
      assert.equal(listed.tasks.length, 20, 'twenty tasks: no message id was repeated');
      const stream = template('SendStreamingMessage', 'stream x');
      assert.deepEqual(await client.call(stream, 13), { events: 13, non2xx: false, bad: false });
    });

    test('a non-OK grpc-status or a wrong number of messages is bad', async () => {
      assert.deepEqual(await client.call(template('NoSuchMethod', 'hi'), 1), { events: 0, non2xx: false, bad: true });
      assert.deepEqual(await client.call(template('SendStreamingMessage', 'stream x'), 12), { events: 13, non2xx: false, bad: true });
    });
  });
});
