/**
 * An AbortController created only when someone reads its signal: most agent runs never look
 * at it, and creating AbortSignals is one of the larger fixed costs of a request in Node.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private aborted = false;

  private reason: unknown;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Aborts (once); `reason` becomes the signal's reason (default: an AbortError). */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
