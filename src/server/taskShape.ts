/** How a stored task is shown to a caller: history trimmed (HIST rules), artifacts optional (LIST-06). */
import type { Task } from '../protocol/types.js';

export interface ShapeOptions {
  /** undefined: server default (everything kept); 0: no history; n: the n most recent. */
  historyLength?: number | undefined;
  /**
   * Unset: artifacts as stored (GetTask). false drops the member entirely (ListTasks default);
   * true always has it, `[]` for a task without artifacts (LIST-06: "may be an empty array").
   */
  includeArtifacts?: boolean;
}

export function shapeTask(task: Task, options: ShapeOptions): Task {
  const { historyLength, includeArtifacts } = options;
  const history = task.history;
  const trimHistory = historyLength !== undefined && history !== undefined && history.length > historyLength;
  const dropArtifacts = includeArtifacts === false && task.artifacts !== undefined;
  const addArtifacts = includeArtifacts === true && task.artifacts === undefined;
  if (!trimHistory && !dropArtifacts && !addArtifacts && !(historyLength === 0 && history)) return task;
  const out: Task = { ...task };
  if (historyLength === 0) delete out.history;
  else if (trimHistory) out.history = (history as Task['history'] & object).slice(-(historyLength as number));
  if (dropArtifacts) delete out.artifacts;
  if (addArtifacts) out.artifacts = [];
  return out;
}
