/**
 * An AbortController created only when someone reads its signal: most agent runs never look
 * at it, and creating AbortSignals is one of the larger fixed costs of a request in Node.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private aborted = false;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    this.aborted = true;
    this.controller?.abort();
  }
}
