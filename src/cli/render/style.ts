/**
 * ANSI styling for human output: on only when the stream is a terminal and NO_COLOR is not set
 * (https://no-color.org: any non-empty value turns colours off).
 */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const plain = (text: string) => text;

export function createStyle(enabled: boolean): Style {
  if (!enabled) return { enabled, bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain, magenta: plain };
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    magenta: wrap(35, 39),
  };
}

/** Colours for `stream` (a tty) under `env`. */
export function colorsWanted(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** `text` without escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** The width of `text` on screen (escape sequences removed). */
export function visibleLength(text: string): number {
  return [...stripAnsi(text)].length;
}
