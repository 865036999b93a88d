/**
 * STREAM-10 at scale, part of the store contract: an artifact streamed in many appended chunks,
 * interleaved with the other kinds of write. The SQL stores write such chunks without rewriting
 * the task snapshot (src/stores/contract/snapshotLag.ts); whatever they do, every read — get,
 * list, a second handle, a subscription resumed from a snapshot — must return exactly the task,
 * version and seq the memory store keeps, which stores each append's task as given.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { applyEvent } from '../../src/protocol/applyEvent.js';
import type { StreamResponse, Task } from '../../src/protocol/types.js';
import { MemoryTaskStore } from '../../src/server/stores/memoryStore.js';
import { VersionConflictError, type AppendInput, type TaskRecord, type TaskStore } from '../../src/server/stores/taskStore.js';
import { freshStoreTest, makeTask, ts, type ContractOptions, type StoreUnderTest } from './contract.js';

/** An artifact chunk event of `task` (STREAM-10: `append` adds the parts to the artifact of that id). */
export function chunkEvent(task: Task, artifactId: string, text: string, fields: { name?: string; lastChunk?: boolean } = {}): StreamResponse {
  const artifact = { artifactId, ...(fields.name !== undefined ? { name: fields.name } : {}), parts: [{ text }] };
  return { artifactUpdate: { taskId: task.id, contextId: task.contextId ?? '', artifact, append: true, ...(fields.lastChunk ? { lastChunk: true } : {}) } };
}

/**
 * Writes to a store and to a memory store alike, the way the server does: each task is the last
 * one with the events applied (applyEvent), unless `task` says otherwise.
 */
export class Mirrored {
  readonly memory = new MemoryTaskStore();
  record!: TaskRecord;

  constructor(readonly store: TaskStore) {}

  async create(task: Task): Promise<void> {
    const [created] = await Promise.all([this.store.create('', task), this.memory.create('', task)]);
    this.record = created.record;
  }

  async append(events: StreamResponse[], task = events.reduce(applyEvent, this.record.task)): Promise<void> {
    const input: AppendInput = { tenant: '', taskId: this.record.task.id, expectedVersion: this.record.version, task, events };
    const written = await this.store.append(input);
    assert.deepEqual(written, await this.memory.append(input));
    this.record = written.record;
  }

  /** get, list, events and (if given) a second handle all answer what the memory store does. */
  async check(other?: TaskStore): Promise<void> {
    const id = this.record.task.id;
    const expected = await this.memory.get('', id);
    assert.deepEqual(await this.store.get('', id), expected);
    const query = { tenant: '', pageSize: 10 };
    assert.deepEqual(await this.store.list(query), await this.memory.list(query));
    assert.deepEqual(await this.store.events('', id, 0), await this.memory.events('', id, 0));
    if (other) {
      assert.deepEqual(await other.get('', id), expected);
      assert.deepEqual(await other.list(query), await this.memory.list(query));
    }
  }
}

export function runChunkContract(name: string, makeStore: () => Promise<StoreUnderTest>, options: ContractOptions = {}): void {
  const storeTest = freshStoreTest(makeStore, 120_000);

  describe(`TaskStore contract, streamed chunks: ${name}`, options.skip ? { skip: options.skip } : {}, () => {
    storeTest('STREAM-10 700 chunks interleaved with status, new artifacts, messages and snapshot-only writes: get, list, events and a second handle return the memory store\'s task, version and seq', async ({ store, reopen }) => {
      const m = new Mirrored(store);
      const task = makeTask('chunks', { contextId: 'c-chunks' });
      await m.create(task);
      // A second task, so list pages hold one streamed task among others.
      await store.create('', makeTask('quiet', { at: -1 }));
      await m.memory.create('', makeTask('quiet', { at: -1 }));
      const status = (state: 'TASK_STATE_WORKING' | 'TASK_STATE_INPUT_REQUIRED', at: number, text: string): StreamResponse => ({
        statusUpdate: { taskId: task.id, contextId: 'c-chunks', status: { state, timestamp: ts(at), message: { messageId: `s-${at}`, role: 'ROLE_AGENT', parts: [{ text }] } } },
      });
      await m.append([status('TASK_STATE_WORKING', 1, 'working')]);
      const other = reopen ? await reopen() : undefined;
      try {
        const text = 'y'.repeat(200);
        for (let i = 0; i < 700; i++) {
          // Mostly chunks of artifact `a`; `b` grows too, and is created by a chunk (append to an unknown id).
          await m.append([chunkEvent(task, i % 9 === 0 ? 'b' : 'a', `${i}:${text}`, i === 350 ? { name: 'renamed' } : {})]);
          if (i % 100 === 50) await m.append([chunkEvent(task, 'a', `two-${i}`), chunkEvent(task, 'b', `two-${i}`)]);
          if (i % 150 === 149) await m.append([status(i % 300 === 149 ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_WORKING', 2 + i, `status ${i}`)]);
          if (i === 220) await m.append([{ artifactUpdate: { taskId: task.id, contextId: 'c-chunks', artifact: { artifactId: 'c', parts: [{ text: 'whole' }] } } }]);
          if (i === 260) await m.append([{ message: { messageId: 'agent-says', role: 'ROLE_AGENT', parts: [{ text: 'note' }], taskId: task.id } }]);
          // A snapshot-only change (no event) amid the chunks.
          if (i === 300) await m.append([], { ...m.record.task, metadata: { seen: i } });
          if (i % 100 === 99) await m.check(other);
        }
        await m.check(other);
        assert.equal(m.record.task.artifacts?.find((a) => a.artifactId === 'a')?.name, 'renamed');
      } finally {
        await other?.close?.();
      }
    });

    storeTest('STREAM-10 chunks keep compare-and-set: a chunk on a stale version is refused and writes nothing; a subscription resumed from a snapshot catches up exactly', async ({ store }) => {
      const m = new Mirrored(store);
      const task = makeTask('cas-chunks');
      await m.create(task);
      const text = 'z'.repeat(300);
      for (let i = 0; i < 250; i++) await m.append([chunkEvent(task, 'a', `${i}${text}`)]);
      // A reader's snapshot, mid-stream: what a subscription starts from.
      const seen = await store.get('', task.id);
      assert.deepEqual(seen, await m.memory.get('', task.id));
      const stale = m.record.version - 1;
      await assert.rejects(
        store.append({ tenant: '', taskId: task.id, expectedVersion: stale, task: m.record.task, events: [chunkEvent(task, 'a', 'late')] }),
        (e: unknown) => e instanceof VersionConflictError,
      );
      assert.deepEqual(await store.get('', task.id), seen);
      for (let i = 0; i < 350; i++) await m.append([chunkEvent(task, 'a', `${i}${text}`, i === 349 ? { lastChunk: true } : {})]);
      await m.append([{ statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status: { state: 'TASK_STATE_COMPLETED', timestamp: ts(9) } } }]);
      // The snapshot plus the events after its seq is the current task.
      const after = await store.events('', task.id, seen?.seq ?? 0);
      assert.deepEqual(
        after.map((e) => e.seq),
        Array.from({ length: 351 }, (_, k) => (seen?.seq ?? 0) + k + 1),
      );
      assert.deepEqual(
        after.reduce((t, e) => applyEvent(t, e.event), seen?.task as Task),
        (await m.memory.get('', task.id))?.task,
      );
      await m.check();
    });
  });
}

/**
 * One artifact streamed in `chunks` appends of `chars` characters (LLM token streaming), as the
 * server writes it; returns the length of the final snapshot's JSON.
 */
export async function streamOneArtifact(store: TaskStore, chunks: number, chars = 40): Promise<number> {
  const task = makeTask('streamed');
  let record = (await store.create('', task)).record;
  const text = 'x'.repeat(chars);
  for (let i = 0; i < chunks; i++) {
    const events = [chunkEvent(task, 'answer', text)];
    record = (await store.append({ tenant: '', taskId: task.id, expectedVersion: record.version, task: events.reduce(applyEvent, record.task), events })).record;
  }
  assert.deepEqual(await store.get('', task.id), record);
  return JSON.stringify(record.task).length;
}
