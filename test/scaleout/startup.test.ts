/** A2A serve on PostgreSQL that fails to start exits (4: the port is in use), instead of hanging on open pool/LISTEN connections. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { runA2A } from '../cli/cliHelpers.js';
import { clusterSuite } from './cluster.js';

const suite = await clusterSuite();

test('a failed start (port taken) on PostgreSQL exits 4 and releases its connections', { timeout: 30_000, ...suite.skip }, async () => {
  await suite.withCluster({ size: 1 }, async (cluster) => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const proc = runA2A(['serve', '--port', String(port), '--store', cluster.store]);
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      const { code, signal } = await proc.exited;
      clearTimeout(timer);
      assert.equal(signal, null, `a2a serve hung after a failed start; stderr: ${proc.stderr}`);
      assert.equal(code, 4);
      assert.match(proc.stderr, new RegExp(`port ${port} is in use`));
    } finally {
      blocker.close();
    }
  });
});
