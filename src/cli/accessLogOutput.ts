/**
 * `a2a serve --access-log`: one JSON line per call on stdout (accessLogLine), held back until
 * the listening output is written, so `--json`'s listening line is always stdout's first line;
 * stopped (the server serving on) when stdout's reader goes away.
 */
import { accessLogLine } from '../observability/accessLog.js';
import type { CallHook } from '../server/callObserver.js';

/** Lines kept while the server starts; more are dropped (a start takes milliseconds). */
const MAX_HELD = 10_000;

export interface HeldAccessLog {
  hook: CallHook;
  /** Writes the lines held so far, then every line as it comes. */
  open(): void;
  /** Writes nothing more (stdout's reader went away). */
  stop(): void;
}

export function heldAccessLog(write: (text: string) => void): HeldAccessLog {
  let held: string[] | undefined = [];
  let stopped = false;
  return {
    hook: (call) => {
      if (stopped) return;
      const line = `${accessLogLine(call)}\n`;
      if (!held) write(line);
      else if (held.length < MAX_HELD) held.push(line);
    },
    open() {
      if (held && held.length > 0) write(held.join(''));
      held = undefined;
    },
    stop() {
      stopped = true;
      held = undefined;
    },
  };
}
