/** A task, for humans: state and ids, the status message, artifacts in full, history on request. */
import type { Task } from '../../protocol/types.js';
import { indent, renderParts, roleName, styledState, textOf } from './parts.js';
import type { Style } from './style.js';

export interface TaskRenderOptions {
  /** Show the history (when the agent returned one); default false. */
  history?: boolean;
}

export function renderTask(task: Task, style: Style, options: TaskRenderOptions = {}): string {
  const lines: string[] = [];
  lines.push(`${style.bold('task')}     ${task.id}  ${styledState(task.status.state, style)}`);
  if (task.contextId) lines.push(`${style.dim('context')}  ${task.contextId}`);
  if (task.status.timestamp) lines.push(`${style.dim('updated')}  ${task.status.timestamp}`);
  const status = task.status.message ? renderParts(task.status.message.parts, style) : '';
  if (status) lines.push(`${style.dim('status')}   ${indent(status, '         ').trimStart()}`);
  for (const artifact of task.artifacts ?? []) {
    const title = artifact.name ?? artifact.artifactId;
    const description = artifact.description ? style.dim(` — ${artifact.description}`) : '';
    lines.push(`${style.bold('artifact')} ${title}${description}`);
    const body = renderParts(artifact.parts, style);
    if (body) lines.push(indent(body, '  '));
  }
  if (options.history && task.history?.length) {
    lines.push(`${style.bold('history')}  ${task.history.length} message${task.history.length === 1 ? '' : 's'}`);
    for (const message of task.history) {
      const text = textOf(message.parts) || renderParts(message.parts, style);
      lines.push(`  ${style.dim(roleName(message).padEnd(5))} ${indent(text, '        ').trimStart()}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** For a task waiting for input: how to answer it (empty otherwise). */
export function inputHint(task: Task, options: { url: string; style: Style }): string {
  const answer = `a2a send ${options.url} "<answer>" --task ${task.id}`;
  if (task.status.state === 'TASK_STATE_INPUT_REQUIRED') return options.style.dim(`answer with: ${answer}`) + '\n';
  // In-task authorization: the same user continues with new credentials (A2A_TOKEN or --api-key).
  if (task.status.state === 'TASK_STATE_AUTH_REQUIRED') return options.style.dim(`authorize as asked, then continue with new credentials: A2A_TOKEN=… ${answer}`) + '\n';
  return '';
}
