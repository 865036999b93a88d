/**
 * ServerHealth's store check (OPS-HEALTH; docs/deploy.md, "Health probes"): one check at a time,
 * shared by every concurrent caller and reused for checkCacheMs, so a flood of probes or Watch
 * starts cannot exhaust the store's pool and make a healthy instance NOT_SERVING; a drain is
 * told at once, whatever is cached; the watchers of a server share one re-check timer.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ServerHealth, type Readiness } from '../../src/server/serverHealth.js';

/** A store whose check counts its calls and answers when `release()` is called (or at once). */
function countingStore(options: { held?: boolean } = {}): { store: { ping: () => Promise<void> }; pings: () => number; release: () => void; fail: (down: boolean) => void } {
  let pings = 0;
  let down = false;
  let release = (): void => undefined;
  return {
    store: {
      ping: async () => {
        pings++;
        if (options.held) await new Promise<void>((resolve) => (release = resolve));
        if (down) throw new Error('down');
      },
    },
    pings: () => pings,
    release: () => release(),
    fail: (value) => (down = value),
  };
}

describe('OPS-HEALTH ServerHealth store check', () => {
  test('200 concurrent readiness callers cause exactly one store check, and all get its answer', async () => {
    const counting = countingStore({ held: true });
    const health = new ServerHealth({ store: counting.store });
    const answers = Array.from({ length: 200 }, () => health.readiness());
    await new Promise((resolve) => setImmediate(resolve));
    counting.release();
    const results = await Promise.all(answers);
    assert.equal(counting.pings(), 1);
    assert.ok(results.every((r) => r.status === 'SERVING'));
  });

  test('the answer is reused for checkCacheMs, then checked again; a failure is reused the same way', async () => {
    let now = 0;
    const counting = countingStore();
    const health = new ServerHealth({ store: counting.store, checkCacheMs: 500, now: () => now });
    assert.equal((await health.readiness()).status, 'SERVING');
    now = 499;
    counting.fail(true);
    assert.equal((await health.readiness()).status, 'SERVING', 'still the cached answer');
    assert.equal(counting.pings(), 1);
    now = 500;
    assert.deepEqual(await health.readiness(), { status: 'NOT_SERVING', reason: 'store unreachable' });
    assert.equal(counting.pings(), 2);
    counting.fail(false);
    now = 900;
    assert.equal((await health.readiness()).status, 'NOT_SERVING', 'the failure is cached too');
    now = 1000;
    assert.equal((await health.readiness()).status, 'SERVING');
    assert.equal(counting.pings(), 3);
  });

  test('a drain is reported at once, never hidden by the cache, and ends a check under way as draining', async () => {
    const counting = countingStore({ held: true });
    const health = new ServerHealth({ store: counting.store, checkCacheMs: 60_000 });
    const first = health.readiness();
    await new Promise((resolve) => setImmediate(resolve));
    counting.release();
    assert.equal((await first).status, 'SERVING');
    const pending = health.readiness();
    health.drain();
    assert.deepEqual(await pending, { status: 'NOT_SERVING', reason: 'draining' });
    assert.deepEqual(await health.readiness(), { status: 'NOT_SERVING', reason: 'draining' });
  });

  test('many watchers share one re-check timer and one check per interval', async () => {
    const counting = countingStore();
    const health = new ServerHealth({ store: counting.store, watchIntervalMs: 50, checkCacheMs: 0 });
    const seen: Readiness[][] = [];
    const stops = Array.from({ length: 100 }, () => {
      const mine: Readiness[] = [];
      seen.push(mine);
      return health.watch((r) => mine.push(r));
    });
    await new Promise((resolve) => setTimeout(resolve, 280));
    for (const stop of stops) stop();
    const pings = counting.pings();
    assert.ok(pings >= 3 && pings <= 6, `${pings} checks in ~5 intervals for 100 watchers`);
    assert.ok(seen.every((s) => s.length === seen[0]?.length && s.length >= 3), 'every watcher heard every check');
  });
});
