/**
 * ListTasks answers bounded in size (R16 limits, LIST-02 pagination), run by every store through
 * runStoreContract: `listTasks` ends a page before the task that would take the tasks' JSON past
 * `maxListResponseChars` (one task always comes), and the nextPageToken of a page ended that way
 * — a cursor at a position inside the store's page — continues right after its last task on
 * every store's keyset (memory: JavaScript order; SQLite and PostgreSQL: the canonical
 * status_ts and id in SQL): nothing skipped, nothing repeated, the order kept across ties.
 * Before, one ListTasks answer carried pageSize tasks whatever their size (100 tasks near the
 * history caps: 1.5 GB, and `RangeError: Invalid string length`). The store asks `fits` of each
 * record in order and reads no row past the first refused, so a page of one huge task does not
 * read and parse the 99 after it.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ListTasksRequest, ListTasksResponse } from '../../src/protocol/types.js';
import { jsonLength } from '../../src/server/jsonLength.js';
import { listTasks } from '../../src/server/taskQueries.js';
import type { TaskRecord, TaskStore } from '../../src/server/stores/taskStore.js';
import type { ContractOptions, StoreUnderTest } from './contract.js';
import { freshStoreTest, makeTask, ts } from './contract.js';

/** Every page of a ListTasks request, following nextPageToken. */
async function pages(store: TaskStore, req: ListTasksRequest, maxListResponseChars: number): Promise<ListTasksResponse[]> {
  const out: ListTasksResponse[] = [];
  let pageToken = '';
  for (let page = 0; page < 1000; page++) {
    const res = await listTasks(store, { ...req, ...(pageToken ? { pageToken } : {}) }, { owner: '', maxListResponseChars });
    out.push(res);
    pageToken = res.nextPageToken;
    if (pageToken === '') return out;
  }
  throw new Error('more than 1000 pages');
}

const chars = (res: ListTasksResponse) => res.tasks.reduce((n, t) => n + jsonLength(t), 0);

export function runListSizeContract(name: string, makeStore: () => Promise<StoreUnderTest>, options: ContractOptions = {}): void {
  const storeTest = freshStoreTest(makeStore);

  describe(`ListTasks answer size on a store: ${name}`, options.skip ? { skip: options.skip } : {}, () => {
    storeTest('LIST-02 R16 a page ended by maxListResponseChars continues right after its last task: every task once, in order', async ({ store }) => {
      // 23 tasks of uneven sizes (one alone over the cap), 4 to a timestamp so cuts fall inside ties.
      const expected: string[] = [];
      for (let i = 0; i < 23; i++) {
        const id = `p${String(i).padStart(2, '0')}`;
        await store.create('', makeTask(id, { at: Math.floor(i / 4), contextId: 'big', text: 'x'.repeat(i === 9 ? 3000 : 100 + (i % 5) * 150) }));
        expected.push(id);
      }
      expected.sort((x, y) => Math.floor(Number(y.slice(1)) / 4) - Math.floor(Number(x.slice(1)) / 4) || (x < y ? 1 : -1));
      const cap = 1500;
      for (const pageSize of [3, 7, 100]) {
        const walked = await pages(store, { contextId: 'big', pageSize }, cap);
        assert.deepEqual(walked.flatMap((r) => r.tasks.map((t) => t.id)), expected, `pageSize ${pageSize}`);
        for (const res of walked) {
          assert.ok(res.tasks.length >= 1 && res.tasks.length <= pageSize, `1..pageSize tasks, pageSize ${pageSize}`);
          assert.ok(res.tasks.length === 1 || chars(res) <= cap, `${chars(res)} characters in ${res.tasks.length} tasks, over ${cap}`);
          assert.equal(res.pageSize, pageSize, 'pageSize is the bound applied, as requested');
          assert.equal(res.totalSize, 23);
        }
        assert.ok(walked.some((r) => r.tasks.length === 1 && chars(r) > cap), 'the task over the cap comes alone');
      }
      // With historyLength 0 the tasks are small: the same cap no longer ends the page early.
      const light = await pages(store, { contextId: 'big', pageSize: 10, historyLength: 0 }, cap);
      assert.deepEqual(
        light.map((r) => r.tasks.length),
        [10, 10, 3],
      );
    });

    storeTest('LIST-02 R16 list asks fits of each record in order and reads none past the first it refuses', async ({ store }) => {
      for (let i = 0; i < 6; i++) await store.create('', makeTask(`f${i}`, { at: i }));
      const asked: string[] = [];
      const refuseThird = (record: TaskRecord) => asked.push(record.task.id) < 3;
      const cut = await store.list({ tenant: '', pageSize: 5, fits: refuseThird });
      assert.deepEqual(ids(cut.records), ['f5', 'f4']);
      assert.deepEqual(asked, ['f5', 'f4', 'f3'], 'nothing after the refused record is read');
      assert.equal(cut.hasMore, true);
      assert.equal(cut.totalSize, 6);
      asked.length = 0;
      const full = await store.list({ tenant: '', pageSize: 4, fits: (record) => asked.push(record.task.id) > 0 });
      assert.deepEqual(ids(full.records), ['f5', 'f4', 'f3', 'f2']);
      assert.deepEqual(asked, ['f5', 'f4', 'f3', 'f2'], 'the row past pageSize only tells hasMore');
      assert.equal(full.hasMore, true);
      const last = await store.list({ tenant: '', pageSize: 4, after: { timestamp: ts(2), id: 'f2' }, fits: () => true });
      assert.deepEqual(ids(last.records), ['f1', 'f0']);
      assert.equal(last.hasMore, false);
    });
  });
}

function ids(records: TaskRecord[]): string[] {
  return records.map((r) => r.task.id);
}
