/**
 * A one-line spinner at the bottom of a terminal: `⠋ working · 3 chunks`. Output written
 * through `print` goes above it; the spinner hides while a line is still open (a text chunk
 * without its newline) so it never overwrites it. On anything but a terminal it draws nothing.
 */
export interface SpinnerOptions {
  /** Where to draw (default process.stdout). */
  write?: (text: string) => void;
  /** Draw at all (default: false; pass `stdout.isTTY`). */
  enabled?: boolean;
  /** Frame interval (default 80 ms). */
  intervalMs?: number;
  /** Styles the frame character. */
  frameStyle?: (text: string) => string;
  /** The terminal's width, to keep the spinner on one line (default process.stdout.columns). */
  columns?: () => number | undefined;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';

export class Spinner {
  private readonly write: (text: string) => void;
  readonly enabled: boolean;
  private readonly intervalMs: number;
  private readonly frameStyle: (text: string) => string;
  private readonly columns: () => number | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private frame = 0;
  private text = '';
  private drawn = false;
  /** The last printed text did not end with a newline. */
  private lineOpen = false;

  constructor(options: SpinnerOptions = {}) {
    this.write = options.write ?? ((text) => void process.stdout.write(text));
    this.enabled = options.enabled === true;
    this.intervalMs = options.intervalMs ?? 80;
    this.frameStyle = options.frameStyle ?? ((text) => text);
    this.columns = options.columns ?? (() => process.stdout.columns);
  }

  /** Shows (or updates) the spinner with `text`. */
  set(text: string): void {
    this.text = text;
    if (!this.enabled) return;
    if (!this.timer) {
      this.timer = setInterval(() => this.draw(), this.intervalMs);
      this.timer.unref();
    }
    this.draw();
  }

  /** Writes `text` above the spinner. */
  print(text: string): void {
    if (text === '') return;
    this.erase();
    this.write(text);
    this.lineOpen = !text.endsWith('\n');
    if (this.timer) this.draw();
  }

  /** Closes an open line (so what follows starts on a line of its own). */
  endLine(): void {
    if (this.lineOpen) this.print('\n');
  }

  /** Removes the spinner for good; the cursor is left at the start of an empty line. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.erase();
    this.endLine();
  }

  private draw(): void {
    if (!this.enabled || this.lineOpen) return;
    this.frame = (this.frame + 1) % FRAMES.length;
    const width = (this.columns() || 80) - 3;
    const chars = [...this.text];
    const text = chars.length > width ? `${chars.slice(0, Math.max(0, width - 1)).join('')}…` : this.text;
    this.write(`${CLEAR_LINE}${this.frameStyle(FRAMES[this.frame] ?? '')} ${text}`);
    this.drawn = true;
  }

  private erase(): void {
    if (!this.drawn) return;
    this.write(CLEAR_LINE);
    this.drawn = false;
  }
}
