/**
 * The SQL of a ListTasks page and its count on SQLite: the WHERE clause both SQL stores share
 * (listWhere), read from the index that serves it. With a context that is the context's index
 * (`tasks_by_owner_context`), whatever else is filtered: without statistics SQLite's planner
 * takes the state index as readily for a context and a state, and then reads every task of the
 * owner in that state for a page and its count (110 ms at 400,000 tasks in 4 states, against
 * under 1 ms); a context's tasks are few next to those.
 */
import { listWhere, type ListFilter } from '../contract/sqlShared.js';
import { RECORD_COLUMNS } from './sqliteStatements.js';

export interface ListSql {
  /** The page, `@limit` rows at most, newest first. */
  page: string;
  /** totalSize: every row the filter matches, whatever the cursor. */
  count: string;
}

/** `bind` takes a value and returns its `@name` placeholder. */
export function listSql(tenant: string, filter: ListFilter, bind: (value: string) => string): ListSql {
  const { base, cursor } = listWhere(tenant, filter, bind);
  const indexed = filter.owner !== undefined && filter.contextId !== undefined ? ' INDEXED BY tasks_by_owner_context' : '';
  return {
    page: `SELECT t.tenant, ${RECORD_COLUMNS} FROM tasks AS t${indexed} WHERE ${base}${cursor} ORDER BY t.status_ts DESC, t.id DESC LIMIT @limit`,
    count: `SELECT count(*) AS n FROM tasks${indexed} WHERE ${base}`,
  };
}
