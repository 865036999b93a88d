/**
 * A2 / AUTHZ-03 (§7.6.1): at AUTH_REQUIRED a task stream (./taskStream.ts) may stay open for
 * `authRequiredMs`: an agent waiting for a credential delivered out-of-band resumes on its own,
 * and the stream delivers the resumption. Any event ends the window (one that leaves the task in
 * AUTH_REQUIRED, an artifact say, starts a new one); none within it, or the end of the stream's
 * own run (nothing more comes from it), lapses it, and the stream ends as it would have ended at
 * once without the window.
 */
import type { TaskState } from '../protocol/types.js';

/** setTimeout's longest delay (a longer one fires at once). */
const MAX_TIMER_MS = 2_147_483_647;

export interface AuthRequiredWindowOptions {
  /** How long the window stays open; 0 or undefined: no window, the stream ends at AUTH_REQUIRED. */
  authRequiredMs: number | undefined;
  /** Settles when the run of the stream's own message is over (the agent returned). */
  runEnded: Promise<unknown> | undefined;
  /** The window lapsed: the stream ends once what is pending is delivered. */
  onLapse: () => void;
}

export class AuthRequiredWindow {
  /** The window's timer while it runs; 'lapsed' once it passed (or the run ended) with nothing delivered. */
  private state: ReturnType<typeof setTimeout> | 'lapsed' | undefined;
  /** `runEnded` is being watched / has settled. */
  private runWatched = false;
  private runOver = false;

  constructor(private readonly options: AuthRequiredWindowOptions) {}

  /** Whether a stream at `state` waits for the next event instead of ending. */
  waitsAt(state: TaskState): boolean {
    return state === 'TASK_STATE_AUTH_REQUIRED' && (this.options.authRequiredMs ?? 0) > 0;
  }

  /** Running, or lapsed. */
  get open(): boolean {
    return this.state !== undefined;
  }

  get lapsed(): boolean {
    return this.state === 'lapsed';
  }

  /** (Re)starts the window; at once lapsed when the stream's own run is over. */
  start(): void {
    this.stop();
    const { runEnded } = this.options;
    if (runEnded && !this.runWatched) {
      this.runWatched = true;
      const over = (): void => {
        this.runOver = true;
        if (this.state !== undefined) this.lapse();
      };
      runEnded.then(over, over);
    }
    if (this.runOver) {
      this.lapse();
      return;
    }
    this.state = setTimeout(() => this.lapse(), Math.min(this.options.authRequiredMs ?? 0, MAX_TIMER_MS));
    this.state.unref?.();
  }

  stop(): void {
    if (this.state !== 'lapsed') clearTimeout(this.state);
    this.state = undefined;
  }

  private lapse(): void {
    this.stop();
    this.state = 'lapsed';
    this.options.onLapse();
  }
}
