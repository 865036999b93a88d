/**
 * The `a2a` commands reach an A2A 0.3 agent that offers only gRPC (`--binding grpc`): the
 * official 0.3 SDK's gRPC server, its 0.3 card served over HTTP. (The CLI loaded the 1.0-only
 * gRPC transport: NO_COMPATIBLE_INTERFACE "this client speaks GRPC 1.0", exit 4.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSdk03GrpcServer, type Sdk03GrpcServer } from '../support/sdk03GrpcServer.js';
import { runToExit } from './cliHelpers.js';

describe('a2a --binding grpc against an A2A 0.3 gRPC-only agent (official 0.3 SDK)', () => {
  let sdk: Sdk03GrpcServer;
  let cardServer: Server;
  let url = '';
  before(async () => {
    sdk = await startSdk03GrpcServer();
    cardServer = createServer((req, res) => {
      res.writeHead(req.url === '/.well-known/agent-card.json' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(sdk.card));
    });
    await new Promise<void>((resolve) => cardServer.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(cardServer.address() as AddressInfo).port}`;
  });
  after(async () => {
    cardServer.close();
    await sdk.close();
  });

  test('VER-09 a2a send and a2a get over 0.3 gRPC: the task, then the same task by id', async () => {
    const sent = await runToExit(['send', url, 'hi over grpc', '--binding', 'grpc', '--json']);
    assert.equal(sent.code, 0, sent.stderr);
    const { task } = JSON.parse(sent.stdout) as { task: { id: string; status: { state: string } } };
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const got = await runToExit(['get', url, task.id, '--binding', 'grpc', '--json']);
    assert.equal(got.code, 0, got.stderr);
    assert.equal((JSON.parse(got.stdout) as { id: string }).id, task.id);
  });
});
