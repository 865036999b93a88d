/** Plain column tables: left-aligned, padded to the widest cell, long cells cut with "…". */
import { stripAnsi, visibleLength } from './style.js';

export interface TableOptions {
  /** Widest a column may get (default 60); longer cells are cut. */
  maxWidth?: number;
  /** Styles the header row. */
  header?: (text: string) => string;
}

function cut(text: string, width: number): string {
  if (visibleLength(text) <= width) return text;
  // Cells that are cut lose their styling: cutting inside an escape sequence would corrupt it.
  const bare = [...stripAnsi(text)];
  return `${bare.slice(0, Math.max(0, width - 1)).join('')}…`;
}

export function renderTable(headers: string[], rows: string[][], options: TableOptions = {}): string {
  const max = options.maxWidth ?? 60;
  const cells = rows.map((row) => headers.map((_, i) => cut((row[i] ?? '').replace(/\s+/g, ' '), max)));
  const widths = headers.map((h, i) => Math.max(visibleLength(h), ...cells.map((row) => visibleLength(row[i] ?? ''))));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleLength(cell))))
      .join('  ')
      .trimEnd();
  const head = line(headers);
  return [options.header ? options.header(head) : head, ...cells.map(line)].join('\n') + '\n';
}
