/** How a stored task is shown to a caller: history trimmed (HIST rules), artifacts optional (LIST-06). */
import type { Task } from '../protocol/types.js';

export interface ShapeOptions {
  /** undefined: server default (everything kept); 0: no history; n: the n most recent. */
  historyLength?: number | undefined;
  /** false drops the artifacts member entirely (ListTasks default). */
  includeArtifacts?: boolean;
}

export function shapeTask(task: Task, options: ShapeOptions): Task {
  const { historyLength, includeArtifacts = true } = options;
  const history = task.history;
  const trimHistory = historyLength !== undefined && history !== undefined && history.length > historyLength;
  const dropArtifacts = !includeArtifacts && task.artifacts !== undefined;
  if (!trimHistory && !dropArtifacts && !(historyLength === 0 && history)) return task;
  const out: Task = { ...task };
  if (historyLength === 0) delete out.history;
  else if (trimHistory) out.history = (history as Task['history'] & object).slice(-(historyLength as number));
  if (dropArtifacts) delete out.artifacts;
  return out;
}
