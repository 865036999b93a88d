/**
 * The client went away before its request body was complete: it disconnected, or it was too slow
 * and the host cut the request (the Node host answers those 408 itself). Nobody is left to answer,
 * and it is no server fault: the bindings do not report it to onError.
 */
export class RequestAbortedError extends Error {
  constructor(options?: ErrorOptions) {
    super('The client went away before the request body was complete', options);
    this.name = 'RequestAbortedError';
  }
}
