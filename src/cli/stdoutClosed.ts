/**
 * What happens when stdout's reader goes away (EPIPE). A client command (`a2a … | head`) stops
 * quietly: main.ts exits. `a2a serve`, once listening, replaces that with its own handler: a
 * server must not die because the reader of its access log left.
 */
let handler: (() => void) | undefined;

/** From now on, an EPIPE on stdout calls `onClosed` (once) instead of ending the process. */
export function whenStdoutClosed(onClosed: () => void): void {
  handler = onClosed;
}

/** Called on stdout's EPIPE: true when a handler took it (the process goes on), false to exit. */
export function stdoutClosed(): boolean {
  const taken = handler;
  if (!taken) return false;
  handler = () => undefined;
  taken();
  return true;
}
