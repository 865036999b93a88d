/**
 * TaskWriter under concurrent writes to one task (architecture decision 5): every change lands
 * once, versions and seqs stay gapless, the bus sees events in seq order. Run twice: on the
 * memory store, which applies writes in call order so the writer skips its per-task lock
 * (`ordersWrites`), and on the same store seen without that flag, through the lock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalEventBus } from '../../src/server/eventBus.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import type { StoredEvent, TaskStore } from '../../src/server/stores/taskStore.js';
import { TaskWriter } from '../../src/server/taskWriter.js';
import { applyArtifact } from '../../src/protocol/applyEvent.js';
import type { Task } from '../../src/protocol/types.js';

const WRITES = 40;

/** The memory store without its `ordersWrites` promise: the writer must take its lock. */
function unorderedView(store: MemoryTaskStore): TaskStore {
  return {
    get: (tenant, id) => store.get(tenant, id),
    create: (tenant, task, options) => store.create(tenant, task, options),
    append: (input) => store.append(input),
    events: (tenant, id, after) => store.events(tenant, id, after),
    findMessage: (tenant, owner, id) => store.findMessage(tenant, owner, id),
    list: (query) => store.list(query),
    claimContext: (tenant, contextId, owner) => store.claimContext(tenant, contextId, owner),
  };
}

for (const [name, view] of [
  ['memory store (ordersWrites: no lock)', (s: MemoryTaskStore): TaskStore => s],
  ['same store through the per-task lock', unorderedView],
] as const) {
  test(`${name}: ${WRITES} concurrent writes to one task all land, gapless and published in seq order`, async () => {
    const store = view(new MemoryTaskStore());
    assert.equal(store.ordersWrites === true, name.startsWith('memory'));
    const bus = new LocalEventBus();
    const writer = new TaskWriter(store, bus);
    const task: Task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-11-30T00:00:00.000Z' } };
    const created = await writer.create('', task);
    const published: number[] = [];
    bus.subscribe('', 't1', (events: StoredEvent[]) => published.push(...events.map((e) => e.seq)));
    await Promise.all(
      Array.from({ length: WRITES }, (_, i) =>
        writer.update({ tenant: '', taskId: 't1', known: created }, (record) => {
          const update = { taskId: 't1', contextId: 'c1', artifact: { artifactId: `a${i}`, parts: [{ text: String(i) }] } };
          return { task: applyArtifact(record.task, update), events: [{ artifactUpdate: update }] };
        }),
      ),
    );
    const final = await store.get('', 't1');
    assert.equal(final?.version, 1 + WRITES);
    assert.equal(final?.seq, 1 + WRITES);
    assert.deepEqual(
      (final?.task.artifacts ?? []).map((a) => a.artifactId).sort(),
      Array.from({ length: WRITES }, (_, i) => `a${i}`).sort(),
    );
    assert.deepEqual(published, Array.from({ length: WRITES }, (_, i) => i + 2));
    assert.deepEqual(
      (await store.events('', 't1', 0)).map((e) => e.seq),
      Array.from({ length: WRITES + 1 }, (_, i) => i + 1),
    );
  });
}
