/** ListTasks (LIST rules). Every test filters by its own contextId: the server is shared. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectError, ok, send, sleep, textOf, uid } from '../../support/assertions.js';
import type { Json } from '../../support/bindings.js';
import type { ScenarioEnv } from './env.js';

export function listScenarios(env: ScenarioEnv): void {
  /** Creates tasks one after the other (distinct status timestamps); returns them oldest first. */
  async function create(contextId: string, texts: string[]): Promise<Json[]> {
    const tasks = [];
    for (const text of texts) {
      tasks.push(ok(await env.b.call('sendMessage', send(text, { contextId }))).task);
      await sleep(3);
    }
    return tasks;
  }
  const ids = (list: Json) => list.tasks.map((t: Json) => t.id);

  /** Follows nextPageToken through the five tasks of a context (10 pages at most): the ids seen and each page's size. */
  async function walkPages(b: ScenarioEnv['b'], contextId: string, pageSize: number): Promise<{ seen: string[]; sizes: number[] }> {
    const seen: string[] = [];
    const sizes: number[] = [];
    let pageToken = '';
    for (let page = 0; page < 10; page++) {
      const res = ok(await b.call('listTasks', { contextId, pageSize, ...(pageToken ? { pageToken } : {}) }));
      assert.equal(res.pageSize, pageSize, 'pageSize is the bound applied');
      assert.equal(res.totalSize, 5);
      assert.equal(typeof res.nextPageToken, 'string');
      seen.push(...ids(res));
      sizes.push(res.tasks.length);
      pageToken = res.nextPageToken;
      if (pageToken === '') break;
    }
    return { seen, sizes };
  }

  describe('ListTasks', () => {
    test('LIST-09 A10 an empty result has tasks [], nextPageToken "", pageSize 50, totalSize 0', async () => {
      const { b } = await env.extra();
      assert.deepEqual(ok(await b.call('listTasks', {})), { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
      const filtered = ok(await env.b.call('listTasks', { contextId: uid('empty') }));
      assert.deepEqual(filtered, { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    });

    test('LIST-07 LIST-04 contextId and status filters, newest first, totalSize', async () => {
      const a = uid('ctx-a');
      const bctx = uid('ctx-b');
      const [a1, a2, a3] = await create(a, ['hi one', 'fail on purpose', 'ask a question']);
      const [b1] = await create(bctx, ['hi other']);
      const all = ok(await env.b.call('listTasks', { contextId: a }));
      assert.deepEqual(ids(all), [a3.id, a2.id, a1.id]);
      assert.equal(all.totalSize, 3);
      assert.equal(all.pageSize, 50);
      assert.equal(all.nextPageToken, '');
      const stamps = all.tasks.map((t: Json) => Date.parse(t.status.timestamp));
      assert.deepEqual(stamps, [...stamps].sort((x, y) => y - x));
      assert.deepEqual(ids(ok(await env.b.call('listTasks', { contextId: a, status: 'TASK_STATE_FAILED' }))), [a2.id]);
      const waiting = ok(await env.b.call('listTasks', { contextId: a, status: 'TASK_STATE_INPUT_REQUIRED' }));
      assert.deepEqual(ids(waiting), [a3.id]);
      assert.equal(waiting.totalSize, 1);
      assert.deepEqual(ids(ok(await env.b.call('listTasks', { contextId: bctx }))), [b1.id]);
    });

    test('LIST-07 statusTimestampAfter is inclusive', async () => {
      const c = uid('ctx-ts');
      const [, middle, newest] = await create(c, ['hi 1', 'hi 2', 'hi 3']);
      const at = middle.status.timestamp;
      assert.deepEqual(ids(ok(await env.b.call('listTasks', { contextId: c, statusTimestampAfter: at }))), [newest.id, middle.id]);
      const later = new Date(Date.parse(at) + 1).toISOString();
      assert.ok(Date.parse(newest.status.timestamp) > Date.parse(later), 'test setup: distinct timestamps');
      assert.deepEqual(ids(ok(await env.b.call('listTasks', { contextId: c, statusTimestampAfter: later }))), [newest.id]);
    });

    test('LIST-07 JSON-04 statusTimestampAfter keeps its digits below the millisecond', async () => {
      const c = uid('ctx-ns');
      const [older, newer] = await create(c, ['hi 1', 'hi 2']);
      const at: string = older.status.timestamp;
      assert.match(at, /\.\d{3}Z$/, 'stored status timestamps have millisecond precision');
      assert.ok(Date.parse(newer.status.timestamp) > Date.parse(at), 'test setup: distinct timestamps');
      // .sss999 and .sss000100 (gRPC: nanos …000100) are after .sss: the older task is left out.
      for (const bound of [at.replace('Z', '999Z'), at.replace('Z', '0001Z'), at.replace('Z', '000100+00:00')]) {
        assert.deepEqual(ids(ok(await env.b.call('listTasks', { contextId: c, statusTimestampAfter: bound }))), [newer.id], bound);
      }
      assert.deepEqual(ids(ok(await env.b.call('listTasks', { contextId: c, statusTimestampAfter: at.replace('Z', '000000Z') }))), [newer.id, older.id]);
    });

    test('LIST-02 LIST-03 pageSize 2 pages through every task exactly once', async () => {
      const c = uid('ctx-page');
      const created = await create(c, ['hi 1', 'hi 2', 'hi 3', 'hi 4', 'hi 5']);
      const { seen, sizes } = await walkPages(env.b, c, 2);
      assert.deepEqual(sizes, [2, 2, 1]);
      assert.deepEqual(seen, created.map((t) => t.id).reverse());
    });

    test('LIST-02 paging stays duplicate-free when a task is updated between pages', async () => {
      const c = uid('ctx-upd');
      const created = await create(c, ['ask q1', 'ask q2', 'ask q3', 'ask q4', 'ask q5']);
      const first = ok(await env.b.call('listTasks', { contextId: c, pageSize: 2 }));
      assert.deepEqual(ids(first), [created[4].id, created[3].id]);
      // The newest task changes (and moves to the top of the order) between pages.
      ok(await env.b.call('sendMessage', send('answer', { taskId: created[4].id })));
      const seen: string[] = ids(first);
      let pageToken = first.nextPageToken;
      while (pageToken) {
        const res = ok(await env.b.call('listTasks', { contextId: c, pageSize: 2, pageToken }));
        seen.push(...ids(res));
        pageToken = res.nextPageToken;
      }
      assert.equal(new Set(seen).size, seen.length, `duplicates in ${JSON.stringify(seen)}`);
      assert.deepEqual(seen, created.map((t) => t.id).reverse());
    });

    test('LIST-02 LIST-09 R16 a page ends early at limits.maxListResponseChars and the next one continues after it', async () => {
      // Tasks of about 2,200 characters: two fit in 5,000, a third does not. Before, one answer held every task.
      const { b } = await env.extra({ handler: { limits: { maxListResponseChars: 5000 } } });
      const c = uid('ctx-big');
      const created = [];
      for (let i = 0; i < 5; i++) {
        created.push(ok(await b.call('sendMessage', send(`hi ${i} ${'x'.repeat(1900)}`, { contextId: c }))).task);
        await sleep(3);
      }
      const { seen, sizes } = await walkPages(b, c, 10);
      assert.deepEqual(sizes, [2, 2, 1]);
      assert.deepEqual(seen, created.map((t) => t.id).reverse());
      // Without their history the same tasks are small: one page.
      assert.equal(ok(await b.call('listTasks', { contextId: c, pageSize: 10, historyLength: 0 })).tasks.length, 5);
    });

    test('LIST-06 artifacts are absent unless includeArtifacts=true; LIST-08 historyLength per task', async () => {
      const c = uid('ctx-art');
      await create(c, ['hi artifacts']);
      const plain = ok(await env.b.call('listTasks', { contextId: c }));
      assert.equal('artifacts' in plain.tasks[0], false, 'artifacts must be absent, not []');
      assert.equal('artifacts' in ok(await env.b.call('listTasks', { contextId: c, includeArtifacts: false })).tasks[0], false);
      const full = ok(await env.b.call('listTasks', { contextId: c, includeArtifacts: true }));
      assert.equal(textOf(full.tasks[0].artifacts[0].parts), 'hi artifacts');
      // A task without artifacts: present and [] on the JSON bindings (proto can't tell [] from absent).
      const asking = uid('ctx-noart');
      await create(asking, ['ask anything']);
      const none = ok(await env.b.call('listTasks', { contextId: asking, includeArtifacts: true })).tasks[0];
      if (env.name === 'GRPC') assert.deepEqual(none.artifacts ?? [], []);
      else assert.deepEqual(none.artifacts, [], 'includeArtifacts=true: artifacts present, [] when there are none');
      assert.equal(plain.tasks[0].history.length, 1);
      assert.equal('history' in ok(await env.b.call('listTasks', { contextId: c, historyLength: 0 })).tasks[0], false);
    });

    test('LIST-05 C8 pageSize 0 and 101 are INVALID_PARAMS; 1 and 100 are fine', async () => {
      for (const pageSize of [0, 101, -1]) {
        expectError(await env.b.call('listTasks', { pageSize }), 'INVALID_PARAMS', { field: 'pageSize' });
      }
      for (const pageSize of [1, 100]) assert.equal(ok(await env.b.call('listTasks', { contextId: uid('c'), pageSize })).pageSize, pageSize);
    });

    test('LIST-10 an unknown status and a bad statusTimestampAfter are INVALID_PARAMS', async () => {
      expectError(await env.b.call('listTasks', { status: 'TASK_STATE_RUNNING' }), 'INVALID_PARAMS', { field: 'status' });
      expectError(await env.b.call('listTasks', { statusTimestampAfter: 'yesterday' }), 'INVALID_PARAMS', { field: 'statusTimestampAfter' });
    });

    test('LIST-12 a pageToken reused with different filters is INVALID_PARAMS', async () => {
      const c = uid('ctx-tok');
      await create(c, ['hi 1', 'hi 2', 'hi 3']);
      const { nextPageToken } = ok(await env.b.call('listTasks', { contextId: c, pageSize: 1 }));
      assert.notEqual(nextPageToken, '');
      ok(await env.b.call('listTasks', { contextId: c, pageSize: 1, pageToken: nextPageToken }));
      expectError(await env.b.call('listTasks', { contextId: uid('other'), pageSize: 1, pageToken: nextPageToken }), 'INVALID_PARAMS', {
        field: 'pageToken',
      });
      const res = await env.b.call('listTasks', { contextId: c, status: 'TASK_STATE_COMPLETED', pageToken: nextPageToken });
      expectError(res, 'INVALID_PARAMS', { field: 'pageToken' });
    });

    test('LIST-11 a garbage pageToken is INVALID_PARAMS', async () => {
      for (const pageToken of ['!!!not-a-token', 'e30', 'AAAA', 'eyJ0IjoxfQ', '%%%']) {
        expectError(await env.b.call('listTasks', { pageToken }), 'INVALID_PARAMS', { field: 'pageToken' });
      }
    });

    test('LIST-11 a forged pageToken (fields of the wrong type or format, extra fields, another encoding) is INVALID_PARAMS', async () => {
      const c = uid('ctx-forged');
      await create(c, ['hi 1', 'hi 2']);
      const token = (value: unknown, encoding: 'base64url' | 'base64' = 'base64url') => Buffer.from(JSON.stringify(value)).toString(encoding);
      const f = JSON.stringify(['', c, '', '']);
      const t = '2030-01-01T00:00:00.000Z';
      const forged = [
        token({ t: 'garbage', i: 'zz', f }),
        token({ t: 1, i: 'zz', f }),
        token({ t, i: '', f }),
        token({ t, i: 7, f }),
        token({ t, i: 'a\u0001b', f }),
        token({ t, i: 'zz', f, x: '1' }),
        token({ i: 'zz', t, f }),
        token({ t, i: 'zz' }),
        `${token({ t, i: 'zz', f })}==`,
        ` ${token({ t, i: 'zz', f })}`,
        token({ t, i: 'a?>?', f }, 'base64'),
      ];
      for (const pageToken of forged) {
        expectError(await env.b.call('listTasks', { contextId: c, pageToken }), 'INVALID_PARAMS', { field: 'pageToken' });
      }
      // A cursor of the right form is a position in the order, whoever made it: every task here is older.
      assert.deepEqual(ids(ok(await env.b.call('listTasks', { contextId: c, pageToken: token({ t, i: 'zz', f }) }))).length, 2);
    });
  });
}
