/**
 * R2 across instances (issue 7, execution leases): the instance running a task's agent holds a
 * lease it renews every ttl/3. When it dies (kill -9), another instance takes the task over
 * within about the TTL + one sweep: a non-resumable agent's task becomes FAILED with a reason, a
 * resumable agent is run again there (exactly once) and the task completes. A live owner keeps
 * its tasks, and CancelTask on another instance stops the agent on the owner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, ok, okStream, send, sleep, textOf } from '../support/assertions.js';
import { clusterSuite, stateOf, type ClusterNode } from './cluster.js';
import type { JournalEntry } from './fixtures/journalAgent.js';

const suite = await clusterSuite();
const TTL_MS = 1000;
/** Takeover deadline after a kill: the TTL, one sweep (ttl/2), and a margin for a loaded CI machine. */
const TAKEOVER_MS = TTL_MS + TTL_MS / 2 + 2000;
const LEASE_ARGS = ['--lease-ttl-ms', String(TTL_MS)];
const JOURNAL_AGENT = fileURLToPath(new URL('./fixtures/journalAgent.ts', import.meta.url));
const RESUMABLE_AGENT = fileURLToPath(new URL('./fixtures/resumableAgent.ts', import.meta.url));

/** A fresh journal file for the fixture agents ($A2A_SCALEOUT_JOURNAL) and a reader for it. */
function journal(): { file: string; read(): JournalEntry[]; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-scaleout-'));
  const file = join(dir, 'journal.jsonl');
  return {
    file,
    read() {
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return [];
      }
      return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as JournalEntry);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function stateOn(n: ClusterNode, id: string): Promise<string> {
  return ok(await n.jsonRpc.call('getTask', { id })).status.state;
}

test(
  'R2 (two instances): kill -9 of the owner mid-task → the other instance fails the task with the reason within TTL + one sweep',
  { timeout: 30_000, ...suite.skip },
  (t) =>
    suite.withCluster(
      { size: 2, args: LEASE_ARGS, env: { A2A_DEMO_SLOW_MS: '20000', A2A_DEMO_TICK_MS: '100' }, stopGraceMs: 2000 },
      async ({ nodes }) => {
        const [a, b] = nodes as [ClusterNode, ClusterNode];
        const task = ok(await a.jsonRpc.call('sendMessage', send('slow owned by A', {}, { returnImmediately: true }))).task;
        await eventually(async () => ((await stateOn(b, task.id)) === 'TASK_STATE_WORKING' ? true : undefined), 'the task WORKING');
        // A live owner keeps its task: longer than TTL + one sweep, and nobody takes it over.
        await sleep(TTL_MS * 2);
        assert.equal(await stateOn(b, task.id), 'TASK_STATE_WORKING', 'a renewed lease is not taken over');
        const streamed = b.rest.stream('subscribeToTask', { id: task.id }, { timeoutMs: 15_000 });

        await a.kill();
        const killedAt = Date.now();
        const failed = await eventually(
          async () => {
            const t = ok(await b.jsonRpc.call('getTask', { id: task.id }));
            return t.status.state === 'TASK_STATE_WORKING' ? undefined : t;
          },
          `B to take the task over within ${TAKEOVER_MS} ms`,
          TAKEOVER_MS,
        );
        const tookMs = Date.now() - killedAt;
        t.diagnostic(`taken over ${tookMs} ms after kill -9 (TTL ${TTL_MS} ms)`);
        assert.equal(failed.status.state, 'TASK_STATE_FAILED', `the task of a dead instance fails (after ${tookMs} ms)`);
        const reason = textOf(failed.status.message?.parts);
        assert.match(reason, /instance/i, `the reason names the instance: ${reason}`);
        assert.match(reason, /stop|die|dead|crash|lost/i, `the reason says it stopped: ${reason}`);

        const events = okStream(await streamed);
        assert.equal(stateOf(events.at(-1)), 'TASK_STATE_FAILED', "a stream on B ends with B's takeover");
        const replay = okStream(await b.jsonRpc.stream('subscribeToTask', { id: task.id }, { headers: { 'last-event-id': '0' } }));
        const terminal = replay.filter((e) => stateOf(e) === 'TASK_STATE_FAILED');
        assert.equal(terminal.length, 1, 'one FAILED event: the task was failed once');
      },
    ),
);

test(
  'R2 (three instances): kill -9 of an owner of 200 running tasks → the survivors fail all of them within TTL + one sweep, not 16 per sweep',
  { timeout: 60_000, ...suite.skip },
  (t) => {
    const ttl = 2000;
    const count = 200;
    return suite.withCluster(
      { size: 3, args: ['--lease-ttl-ms', String(ttl)], env: { A2A_DEMO_SLOW_MS: '120000', A2A_DEMO_TICK_MS: '60000' }, stopGraceMs: 2000 },
      async ({ nodes }) => {
        const [a, b] = nodes as [ClusterNode, ClusterNode, ClusterNode];
        for (let i = 0; i < count; i++) ok(await a.jsonRpc.call('sendMessage', send(`slow job ${i}`, {}, { returnImmediately: true })));
        const working = async () => Number(ok(await b.jsonRpc.call('listTasks', { status: 'TASK_STATE_WORKING', pageSize: 1 })).totalSize);
        await eventually(async () => ((await working()) === count ? true : undefined), `all ${count} tasks WORKING on A`, 20_000);
        await a.kill();
        const killedAt = Date.now();
        // The TTL, one sweep (ttl/2) and a margin; 16 per sweep per survivor would need 7 sweeps (~8 s).
        const deadline = ttl + ttl / 2 + 2500;
        await eventually(async () => ((await working()) === 0 ? true : undefined), `every task taken over within ${deadline} ms`, deadline);
        t.diagnostic(`${count} tasks taken over ${Date.now() - killedAt} ms after kill -9 (TTL ${ttl} ms)`);
        const failed = Number(ok(await b.jsonRpc.call('listTasks', { status: 'TASK_STATE_FAILED', pageSize: 1 })).totalSize);
        assert.equal(failed, count, 'each orphaned task is FAILED');
      },
    );
  },
);

test(
  'R2 (three instances): kill -9 of the owner of a resumable agent → exactly one other instance runs it again and it completes',
  { timeout: 30_000, ...suite.skip },
  async (t) => {
    const log = journal();
    try {
      await suite.withCluster(
        { size: 3, args: [...LEASE_ARGS, '--agent', RESUMABLE_AGENT], env: { A2A_SCALEOUT_JOURNAL: log.file }, stopGraceMs: 2000 },
        async ({ nodes }) => {
          const [a, b, c] = nodes as [ClusterNode, ClusterNode, ClusterNode];
          const task = ok(await a.jsonRpc.call('sendMessage', send('work 1500', {}, { returnImmediately: true }))).task;
          await eventually(async () => (log.read().some((e) => e.event === 'start' && e.pid === a.pid) ? true : undefined), 'the agent started on A');
          await a.kill();
          const killedAt = Date.now();
          const done = await eventually(
            async () => {
              const t = ok(await b.jsonRpc.call('getTask', { id: task.id }));
              return t.status.state === 'TASK_STATE_WORKING' || t.status.state === 'TASK_STATE_SUBMITTED' ? undefined : t;
            },
            'another instance to finish the task',
            TAKEOVER_MS + 1500,
          );
          t.diagnostic(`finished elsewhere ${Date.now() - killedAt} ms after kill -9 (TTL ${TTL_MS} ms, run 1500 ms)`);
          assert.equal(done.status.state, 'TASK_STATE_COMPLETED', `the resumed run completes: ${JSON.stringify(done.status)}`);
          const entries = log.read().filter((e) => e.taskId === task.id);
          const starts = entries.filter((e) => e.event === 'start');
          assert.equal(starts.length, 2, `started on A, then once more: ${JSON.stringify(entries)}`);
          const [first, again] = starts as [JournalEntry, JournalEntry];
          assert.deepEqual([first.pid, first.resumed], [a.pid, false]);
          assert.ok([b.pid, c.pid].includes(again.pid), 'run again by a surviving instance');
          assert.equal(again.resumed, true, 'with ctx.task set');
          assert.equal(again.text, 'work 1500', "with the task's last user message");
          assert.deepEqual(
            entries.filter((e) => e.event === 'done').map((e) => e.pid),
            [again.pid],
            'finished once, by the instance that took it over',
          );
          assert.equal(textOf(done.artifacts?.[0]?.parts), `done by ${again.pid} (resumed)`);
          assert.equal(await stateOn(c, task.id), 'TASK_STATE_COMPLETED');
        },
      );
    } finally {
      log.remove();
    }
  },
);

test(
  'R3 (one executor per task): an owner paused past its lease (SIGSTOP) stops its run when it wakes — the instance that took over is the only one to finish',
  { timeout: 60_000, ...suite.skip },
  async (t) => {
    const log = journal();
    const ttl = 2000;
    try {
      await suite.withCluster(
        { size: 2, args: ['--lease-ttl-ms', String(ttl), '--agent', RESUMABLE_AGENT], env: { A2A_SCALEOUT_JOURNAL: log.file }, stopGraceMs: 2000 },
        async ({ nodes }) => {
          const [a, b] = nodes as [ClusterNode, ClusterNode];
          const task = ok(await a.jsonRpc.call('sendMessage', send('work 8000', {}, { returnImmediately: true }))).task;
          await eventually(async () => (log.read().some((e) => e.event === 'start' && e.pid === a.pid) ? true : undefined), 'the agent started on A');
          a.proc.kill('SIGSTOP');
          try {
            await eventually(
              async () => (log.read().some((e) => e.event === 'start' && e.pid === b.pid && e.resumed) ? true : undefined),
              'B to take the paused owner’s task over',
              ttl * 3,
            );
            await sleep(4000 - ttl);
          } finally {
            a.proc.kill('SIGCONT');
          }
          await eventually(async () => (log.read().some((e) => e.event === 'abort' && e.pid === a.pid) ? true : undefined), 'A to stop its run once awake', ttl * 2);
          const done = await eventually(
            async () => {
              const got = ok(await b.jsonRpc.call('getTask', { id: task.id }));
              return got.status.state === 'TASK_STATE_COMPLETED' ? got : undefined;
            },
            'the task to complete',
            15_000,
          );
          // A's 8 s run would have ended by now (and written) had it not stopped.
          await sleep(1500);
          const entries = log.read().filter((e) => e.taskId === task.id);
          t.diagnostic(JSON.stringify(entries.map((e) => `${e.pid === a.pid ? 'A' : 'B'} ${e.event}`)));
          assert.deepEqual(
            entries.filter((e) => e.event === 'done').map((e) => e.pid),
            [b.pid],
            'only the instance holding the lease finished the run',
          );
          assert.deepEqual(
            (done.artifacts ?? []).map((x: { parts?: unknown }) => textOf(x.parts as never)),
            [`done by ${b.pid} (resumed)`],
            'A wrote nothing after losing its lease',
          );
          assert.match(a.proc.stderr, /lease of task .* was lost/, 'A says why it stopped the run');
        },
      );
    } finally {
      log.remove();
    }
  },
);

test('CancelTask on B stops the agent running on A (its signal aborts) and A shuts down promptly', { timeout: 30_000, ...suite.skip }, async () => {
  const log = journal();
  try {
    await suite.withCluster(
      { size: 2, args: [...LEASE_ARGS, '--agent', JOURNAL_AGENT], env: { A2A_SCALEOUT_JOURNAL: log.file }, stopGraceMs: 2000 },
      async ({ nodes }) => {
        const [a, b] = nodes as [ClusterNode, ClusterNode];
        const task = ok(await a.jsonRpc.call('sendMessage', send('work 20000', {}, { returnImmediately: true }))).task;
        await eventually(async () => (log.read().some((e) => e.event === 'start' && e.pid === a.pid) ? true : undefined), 'the agent started on A');
        assert.equal(ok(await b.rest.call('cancelTask', { id: task.id })).status.state, 'TASK_STATE_CANCELED');
        await eventually(
          async () => (log.read().some((e) => e.event === 'abort' && e.pid === a.pid && e.taskId === task.id) ? true : undefined),
          "the cancel made on B to abort the agent's signal on A",
          3000,
        );
        assert.equal(await a.stop(3000), true, 'A exits on SIGTERM without waiting for a canceled agent');
        assert.equal(await stateOn(b, task.id), 'TASK_STATE_CANCELED');
      },
    );
  } finally {
    log.remove();
  }
});

test('R24 SIGTERM hands unfinished runs over at once: another instance resumes them without waiting for the lease TTL', { timeout: 60_000, ...suite.skip }, async (t) => {
  const log = journal();
  const ttl = 8000;
  try {
    await suite.withCluster(
      { size: 2, args: ['--lease-ttl-ms', String(ttl), '--agent', RESUMABLE_AGENT], env: { A2A_SCALEOUT_JOURNAL: log.file }, stopGraceMs: 20_000 },
      async ({ nodes }) => {
        const [a, b] = nodes as [ClusterNode, ClusterNode];
        const ids: string[] = [];
        for (let i = 0; i < 4; i++) ids.push(ok(await a.jsonRpc.call('sendMessage', send('work 60000', {}, { returnImmediately: true }))).task.id);
        await eventually(async () => (log.read().filter((e) => e.event === 'start' && e.pid === a.pid).length === ids.length ? true : undefined), 'every run started on A');
        // SIGTERM: A finishes what it can within its shutdown deadline, then cuts the runs short and expires their leases.
        assert.equal(await a.stop(20_000), true, 'A exits on SIGTERM');
        const exitedAt = Date.now();
        await eventually(
          async () => (ids.every((id) => log.read().some((e) => e.event === 'start' && e.pid === b.pid && e.taskId === id && e.resumed)) ? true : undefined),
          'B to resume every run',
          ttl,
        );
        const after = Date.now() - exitedAt;
        t.diagnostic(`B resumed all ${ids.length} runs ${after} ms after A exited (lease TTL ${ttl} ms)`);
        // Without the handover B would wait for the TTL to pass (and a sweep) before taking them over.
        assert.ok(after < ttl, `taken over in ${after} ms, before the ${ttl} ms TTL`);
        for (const id of ids) assert.equal(ok(await b.jsonRpc.call('cancelTask', { id })).status.state, 'TASK_STATE_CANCELED');
      },
    );
  } finally {
    log.remove();
  }
});
