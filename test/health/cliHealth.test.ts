/**
 * `a2a serve` and the health probes (OPS-HEALTH): served by default, `--no-health` turns them
 * off, `--shutdown-delay-ms` keeps serving with /readyz 503 "draining" after SIGTERM before the
 * listener closes; `--pg-pool-size N` (1..1000, PostgreSQL only) sizes the store's pool.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../src/stores/contract/openStore.js';
import type { PostgresTaskStore } from '../../src/stores/postgres/postgresStore.js';
import { runToExit, startServe, type A2AProcess } from '../cli/cliHelpers.js';
import { pgTestDatabase } from '../stores/pgSetup.js';
import { probe } from './support.js';

const procs: A2AProcess[] = [];
after(() => {
  for (const p of procs) p.kill();
});

async function serve(args: string[]): Promise<{ proc: A2AProcess; base: string }> {
  const { proc, urls } = await startServe(args);
  procs.push(proc);
  return { proc, base: new URL(urls.card).origin.replace('localhost', '127.0.0.1') };
}

describe('OPS-HEALTH a2a serve', () => {
  test('/healthz and /readyz are served by default; --no-health serves neither', async () => {
    const on = await serve([]);
    assert.deepEqual((await probe(`${on.base}/healthz`)).json, { status: 'SERVING' });
    assert.deepEqual((await probe(`${on.base}/readyz`)).json, { status: 'SERVING' });
    const off = await serve(['--no-health']);
    assert.equal((await probe(`${off.base}/healthz`)).status, 404);
    assert.equal((await probe(`${off.base}/readyz`)).status, 404);
  });

  test('--shutdown-delay-ms: after SIGTERM /readyz answers 503 "draining" while the listener still serves, then the process exits 0', async () => {
    const { proc, base } = await serve(['--shutdown-delay-ms', '1500']);
    proc.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const draining = await probe(`${base}/readyz`);
    assert.equal(draining.status, 503);
    assert.deepEqual(draining.json, { status: 'NOT_SERVING', reason: 'draining' });
    assert.equal((await probe(`${base}/healthz`)).status, 200);
    const { code } = await proc.exited;
    assert.equal(code, 0);
  });

  for (const [args, message] of [
    [['--store', 'postgres://a2a@127.0.0.1:1/x', '--pg-pool-size', '0'], /--pg-pool-size must be an integer from 1 to 1000, got "0"/],
    [['--store', 'postgres://a2a@127.0.0.1:1/x', '--pg-pool-size', '1001'], /--pg-pool-size must be an integer from 1 to 1000, got "1001"/],
    [['--store', 'postgres://a2a@127.0.0.1:1/x', '--pg-pool-size', 'ten'], /--pg-pool-size must be an integer from 1 to 1000, got "ten"/],
    [['--store', 'memory', '--pg-pool-size', '5'], /--pg-pool-size needs a postgres:\/\/ --store/],
    [['--store', 'memory', '--shutdown-delay-ms', '700000'], /--shutdown-delay-ms must be an integer from 0 to 600000/],
  ] as const) {
    test(`a2a serve ${args.join(' ')} → exit 2 naming the flag`, async () => {
      const r = await runToExit(['serve', '--port', '0', ...args]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
    });
  }
});

const setup = await pgTestDatabase();
const skip = typeof setup === 'string' ? setup : false;

test('OPS-HEALTH --pg-pool-size reaches the PostgreSQL pool (openStore poolSize)', { skip }, async () => {
  if (typeof setup === 'string') return;
  try {
    const opened = await openStore(`${setup.url}?schema=${setup.schema()}`, { poolSize: 3 });
    try {
      assert.equal((opened.store as PostgresTaskStore).pool.options.max, 3);
    } finally {
      await opened.close();
    }
  } finally {
    await setup.dispose();
  }
});
