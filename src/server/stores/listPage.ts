/**
 * The records of one list page, shared by every store: rows are made records only as they are
 * reached, in list order, and the page ends at `pageSize` or before the first record
 * `ListQuery.fits` refuses (listTasks' answer-size cap), so a store reading rows one at a time
 * never reads, copies or parses the rows a page will not carry.
 */
import type { ListQuery, TaskRecord } from './taskStore.js';

/**
 * `rows`: at most pageSize + 1 rows in list order; `toRecord` makes one a record (undefined:
 * not a task, skipped). hasMore: a record is left after the page.
 */
export function listPage<R>(
  rows: Iterable<R>,
  query: Pick<ListQuery, 'pageSize' | 'fits'>,
  toRecord: (row: R) => TaskRecord | undefined,
): { records: TaskRecord[]; hasMore: boolean } {
  const records: TaskRecord[] = [];
  for (const row of rows) {
    const record = toRecord(row);
    if (record === undefined) continue;
    if (records.length === query.pageSize || (query.fits && !query.fits(record))) return { records, hasMore: true };
    records.push(record);
  }
  return { records, hasMore: false };
}
