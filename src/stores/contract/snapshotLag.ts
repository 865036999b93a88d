/**
 * Streamed artifacts at a cost linear in their size, for both SQL stores. Rewriting the whole
 * task snapshot (`task_json`) on every append made N appended chunks of one artifact cost
 * O(N × size) (LLM token streaming: 8,000 chunks took 18 s on SQLite, and PostgreSQL kept a
 * dead TOASTed copy of the task per chunk). So an append made only of artifact chunks
 * (`artifactUpdate` with `append`) may leave `task_json` as it is and write just its events, as
 * long as the snapshot's room lasts: the row counts the events the snapshot lags behind
 * (`snapshot_lag`: the snapshot reflects the log up to `seq - snapshot_lag`) and the characters
 * of chunk events it may still lag by (`snapshot_room`). A write of the whole snapshot (any
 * other event, or a chunk the room does not cover) sets the lag to 0 and the room to
 * max(64 KiB, the snapshot's length): the snapshots written add up to at most about twice the
 * events' characters, whatever the number of chunks.
 *
 * Every read of a row replays the events the snapshot lags behind with applyEvent (the reducer
 * the server computes each new snapshot with), fetched in the same statement: readers on any
 * instance see the full current task, exactly what a store that rewrites the snapshot keeps.
 * The events stay in the log for as long as their task (only retention deletes them, with it).
 */
import { applyEvent } from '../../protocol/applyEvent.js';
import type { StreamResponse, Task } from '../../protocol/types.js';
import type { AppendInput, MessageClaim } from '../../server/stores/taskStore.js';

/** The least room of a snapshot, in characters of event JSON. */
export const SNAPSHOT_MIN_ROOM = 65_536;

/** The room of a snapshot just written: the geometric growth that keeps the rewrites linear in total. */
export function snapshotRoom(json: string): number {
  return Math.max(SNAPSHOT_MIN_ROOM, json.length);
}

/**
 * The characters an append may add to its snapshot's lag, or undefined when it must write the
 * snapshot: only appends made of artifact chunks qualify (their snapshot is applyEvent of the
 * previous one over them; they change no indexed column), none recording a message.
 */
export function chunkChars(input: AppendInput & { claim?: MessageClaim }, eventJson: readonly string[]): number | undefined {
  if (input.claim || input.events.length === 0 || !input.events.every(isArtifactChunk)) return undefined;
  return eventJson.reduce((n, json) => n + json.length, 0);
}

function isArtifactChunk(event: StreamResponse): boolean {
  return 'artifactUpdate' in event && event.artifactUpdate.append === true;
}

/**
 * The chunk write: the events' counters only, if the version matches and the room lasts (no
 * row otherwise: a version conflict, or a snapshot to write). `@name` parameters (SQLite binds
 * them, compilePg numbers them); `now` is SQL. `lease` adds the R3 condition of the caller.
 */
export function chunkUpdateSql(table: string, options: { now: string; lease?: string }): string {
  return `UPDATE ${table} SET updated_at = ${options.now}, version = version + 1, seq = seq + @count,
      snapshot_lag = snapshot_lag + @count, snapshot_room = snapshot_room - @chars
    WHERE tenant = @tenant AND id = @taskId AND version = @expectedVersion AND snapshot_room >= @chars${options.lease ?? ''}
    RETURNING seq, owner`;
}

/**
 * The events task row `alias` lags behind, as one JSON array text in seq order (NULL when none),
 * for the select list of every read of task rows. `events`: the events table.
 */
export function lagEventsSql(events: string, alias: string): string {
  return `CASE WHEN ${alias}.snapshot_lag > 0 THEN (
      SELECT '[' || string_agg(e.event_json, ',' ORDER BY e.seq) || ']' FROM ${events} e
      WHERE e.tenant = ${alias}.tenant AND e.task_id = ${alias}.id AND e.seq > ${alias}.seq - ${alias}.snapshot_lag AND e.seq <= ${alias}.seq
    ) END AS lag_json`;
}

/** The current task: the snapshot, with the events it lags behind (lag_json) applied. */
export function currentTask(taskJson: string, lagJson: string | null | undefined): Task {
  let task = JSON.parse(taskJson) as Task;
  if (lagJson) for (const event of JSON.parse(lagJson) as StreamResponse[]) task = applyEvent(task, event);
  return task;
}
