/**
 * SQLite group commit: writes of one event-loop turn share a transaction, each in its own
 * savepoint. A write that fails (version conflict, duplicate message) fails alone; the others
 * commit; every promise settles only after the COMMIT.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqliteStore.js';
import { GroupCommit } from '../../src/stores/sqlite/groupCommit.js';
import { DuplicateMessageError, VersionConflictError } from '../../src/server/stores/taskStore.js';
import type { Task } from '../../src/protocol/types.js';

const task = (id: string): Task => ({ id, contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() } });

test('concurrent writes in one turn: failures are isolated, the rest commit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-group-'));
  const store = new SqliteTaskStore({ path: join(dir, 'g.db') });
  try {
    await store.create('', task('existing'));
    const results = await Promise.allSettled([
      store.create('', task('a'), { claim: { messageId: 'm1', fingerprint: 'f' } }),
      store.create('', task('existing')), // version conflict
      store.create('', task('b'), { claim: { messageId: 'm1', fingerprint: 'f' } }), // duplicate message id
      store.create('', task('c')),
      store.append({ tenant: '', taskId: 'existing', expectedVersion: 7, task: task('existing'), events: [] }), // stale version
    ]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'rejected', 'fulfilled', 'rejected']);
    assert.ok((results[1] as PromiseRejectedResult).reason instanceof VersionConflictError);
    assert.ok((results[2] as PromiseRejectedResult).reason instanceof DuplicateMessageError);
    assert.ok((results[4] as PromiseRejectedResult).reason instanceof VersionConflictError);
    assert.ok(await store.get('', 'a'));
    assert.ok(await store.get('', 'c'));
    assert.equal(await store.get('', 'b'), undefined, 'the failed write left nothing behind');
    assert.equal((await store.findMessage('', '', 'm1'))?.taskId, 'a');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a write is acknowledged only after COMMIT; a failed COMMIT fails every write of the group', async () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (v INTEGER)');
  const group = new GroupCommit(db);
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const inserting = (v: number) => db.transaction(() => insert.run(v));
  let committedBeforeAck = false;
  const first = group.write(() => inserting(1)()).then(() => {
    committedBeforeAck = !db.inTransaction && (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n === 2;
  });
  const second = group.write(() => inserting(2)());
  await Promise.all([first, second]);
  assert.equal(committedBeforeAck, true);
  // Make COMMIT fail: a deferred foreign key violation is only checked at COMMIT time.
  db.exec('PRAGMA foreign_keys = ON; CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (pid INTEGER REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED)');
  const bad = db.prepare('INSERT INTO c (pid) VALUES (42)');
  const results = await Promise.allSettled([group.write(() => inserting(3)()), group.write(() => bad.run())]);
  assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
  assert.equal((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 2, 'nothing of the failed group stayed');
  db.close();
});
