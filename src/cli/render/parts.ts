/** Human renderings of task states, parts and messages. */
import type { Message, Part, TaskState } from '../../protocol/types.js';
import type { Style } from './style.js';

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export function stateName(state: TaskState | string): string {
  return state.replace(/^TASK_STATE_/, '').toLowerCase().replace(/_/g, '-');
}

export function styledState(state: TaskState | string, style: Style): string {
  const name = stateName(state);
  switch (state) {
    case 'TASK_STATE_COMPLETED':
      return style.green(name);
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_REJECTED':
      return style.red(name);
    case 'TASK_STATE_CANCELED':
    case 'TASK_STATE_INPUT_REQUIRED':
    case 'TASK_STATE_AUTH_REQUIRED':
      return style.yellow(name);
    default:
      return style.cyan(name);
  }
}

/** The text parts, concatenated. */
export function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

/** Decoded size of base64 data. */
export function base64Size(b64: string): number {
  const s = b64.replace(/\s/g, '');
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((s.length * 3) / 4) - pad);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A file part in one line: `[file] echo.txt · text/plain · 5 B`. */
export function fileSummary(part: Part, style: Style): string {
  const bits: string[] = [];
  if ('raw' in part) bits.push(part.filename ?? '(unnamed)');
  else if ('url' in part) bits.push(part.filename ? `${part.filename} <${part.url}>` : part.url);
  if (part.mediaType) bits.push(part.mediaType);
  if ('raw' in part) bits.push(formatBytes(base64Size(part.raw)));
  return `${style.magenta('[file]')} ${bits.join(' · ')}`;
}

/** One part as text: text as is, data as indented JSON, files as a summary line. */
export function renderPart(part: Part, style: Style): string {
  if ('text' in part) return part.text;
  if ('data' in part) return JSON.stringify(part.data, null, 2);
  return fileSummary(part, style);
}

/**
 * The parts of a message or artifact: consecutive text parts run together (they are often
 * chunks of one text), anything else on lines of its own. No trailing newline.
 */
export function renderParts(parts: readonly Part[], style: Style): string {
  let out = '';
  for (const part of parts) {
    if ('text' in part) {
      out += part.text;
    } else {
      if (out && !out.endsWith('\n')) out += '\n';
      out += `${renderPart(part, style)}\n`;
    }
  }
  return out.replace(/\n$/, '');
}

export function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line) => (line ? by + line : line))
    .join('\n');
}

export function roleName(message: Message): string {
  return message.role === 'ROLE_AGENT' ? 'agent' : message.role === 'ROLE_USER' ? 'user' : 'unknown';
}

/** A message reply: its parts. */
export function renderMessage(message: Message, style: Style): string {
  return `${renderParts(message.parts, style)}\n`;
}
