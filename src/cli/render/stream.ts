/**
 * Live rendering of a task stream (`a2a stream`, `a2a subscribe`, `a2a chat`): state changes
 * as lines (and in a spinner on a terminal), artifact chunks printed as they arrive — appended
 * chunks continue the artifact already on screen — and, at the end, a summary.
 */
import { TaskAssembler } from '../../client/streams.js';
import { isFinalForNow } from '../../protocol/taskStates.js';
import type { Artifact, Part, StreamResponse, Task } from '../../protocol/types.js';
import { fileSummary, renderMessage, renderParts, stateName, styledState, textOf } from './parts.js';
import { Spinner } from './spinner.js';
import type { Style } from './style.js';

export interface StreamRendererOptions {
  style: Style;
  write: (text: string) => void;
  /** Draw a spinner (stdout is a terminal). */
  spinner: boolean;
  /**
   * `stream`: a header with the task id, intermediate states as lines, a summary at the end.
   * `chat`: artifacts only; the caller shows the outcome.
   */
  mode: 'stream' | 'chat';
}

interface Printed {
  parts: number;
  /** JSON of the last part printed, to recognise a continuation of what is on screen. */
  last: string;
}

export class StreamRenderer {
  readonly assembler = new TaskAssembler();
  private readonly spinner: Spinner;
  private readonly printed = new Map<string, Printed>();
  /** The artifact whose text is at the bottom of the screen. */
  private open: string | undefined;
  private headerShown = false;
  private shownState: string | undefined;
  private shownStatus: string | undefined;
  private chunks = 0;

  constructor(private readonly options: StreamRendererOptions) {
    this.spinner = new Spinner({ write: options.write, enabled: options.spinner, frameStyle: options.style.cyan });
  }

  get task(): Task | undefined {
    return this.assembler.task;
  }

  /** Before the first event. */
  start(text = 'connecting'): void {
    this.spinner.set(text);
  }

  event(event: StreamResponse): void {
    const before = this.assembler.task;
    const task = this.assembler.apply(event);
    if ('message' in event && !task) {
      // A direct reply: printed here in stream mode, by the caller in chat mode.
      if (this.options.mode === 'stream') {
        this.spinner.endLine();
        this.spinner.print(renderMessage(event.message, this.options.style));
      }
      return;
    }
    if (!task) return;
    if (!this.headerShown && this.options.mode === 'stream') {
      this.headerShown = true;
      const context = task.contextId ? this.options.style.dim(`  context ${task.contextId}`) : '';
      this.spinner.print(`${this.options.style.bold('task')} ${task.id}${context}\n`);
    }
    if ('artifactUpdate' in event) {
      this.chunks++;
      const artifact = task.artifacts?.find((a) => a.artifactId === event.artifactUpdate.artifact.artifactId);
      if (artifact) this.showArtifact(artifact);
    } else if ('task' in event) {
      for (const artifact of task.artifacts ?? []) this.showArtifact(artifact);
    }
    if (before?.status !== task.status) this.showStatus(task);
    this.spinner.set(this.spinnerText(task));
  }

  /** Stops the spinner; in `stream` mode prints the summary. */
  finish(): void {
    this.spinner.stop();
    const task = this.assembler.task;
    if (this.options.mode !== 'stream' || !task) return;
    const { style } = this.options;
    const lines = [`${styledState(task.status.state, style)}  ${style.dim(`task ${task.id}`)}`];
    const status = task.status.message ? renderParts(task.status.message.parts, style) : '';
    if (status && status !== this.shownStatus) lines.push(status);
    const artifacts = task.artifacts ?? [];
    if (artifacts.length) {
      const list = artifacts.map((a) => `${a.name ?? a.artifactId} (${a.parts.length} part${a.parts.length === 1 ? '' : 's'})`);
      lines.push(style.dim(`${artifacts.length} artifact${artifacts.length === 1 ? '' : 's'}: ${list.join(', ')}`));
    }
    this.options.write(`${lines.join('\n')}\n`);
  }

  /** Stops the spinner without a summary (on errors). */
  abort(): void {
    this.spinner.stop();
  }

  private showStatus(task: Task): void {
    const state = task.status.state;
    const text = textOf(task.status.message?.parts);
    // The final state is the summary's (stream mode) or the caller's (chat mode).
    // SUBMITTED goes without saying (the header); the final state is the summary's (stream
    // mode) or the caller's (chat mode).
    if (this.options.mode !== 'stream' || isFinalForNow(state) || (state === 'TASK_STATE_SUBMITTED' && !text)) return;
    const changed = state !== this.shownState || (!this.options.spinner && text !== '' && text !== this.shownStatus);
    if (!changed) return;
    this.shownState = state;
    this.shownStatus = text;
    this.spinner.endLine();
    this.open = undefined;
    const { style } = this.options;
    this.spinner.print(`${style.dim('·')} ${styledState(state, style)}${text ? `  ${text}` : ''}\n`);
  }

  private showArtifact(artifact: Artifact): void {
    const seen = this.printed.get(artifact.artifactId);
    const continues = seen !== undefined && seen.parts <= artifact.parts.length && JSON.stringify(artifact.parts[seen.parts - 1]) === seen.last;
    const from = continues ? seen.parts : 0;
    if (from === artifact.parts.length) return;
    if (!continues || this.open !== artifact.artifactId) {
      this.spinner.endLine();
      const { style } = this.options;
      const title = artifact.name ?? artifact.artifactId;
      this.spinner.print(`${style.bold('▸')} ${style.bold(title)}${continues ? style.dim(' (continued)') : ''}\n`);
      this.open = artifact.artifactId;
    }
    for (const part of artifact.parts.slice(from)) this.printPart(part);
    const last = artifact.parts[artifact.parts.length - 1];
    this.printed.set(artifact.artifactId, { parts: artifact.parts.length, last: JSON.stringify(last) });
  }

  private printPart(part: Part): void {
    const { style } = this.options;
    if ('text' in part) return this.spinner.print(part.text);
    this.spinner.endLine();
    this.spinner.print(`${'data' in part ? JSON.stringify(part.data, null, 2) : fileSummary(part, style)}\n`);
  }

  private spinnerText(task: Task): string {
    const status = textOf(task.status.message?.parts).split('\n')[0] ?? '';
    const bits = [stateName(task.status.state)];
    if (status) bits.push(status);
    if (this.chunks) bits.push(`${this.chunks} chunk${this.chunks === 1 ? '' : 's'}`);
    return bits.join(' · ');
  }
}
