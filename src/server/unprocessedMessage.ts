/**
 * Reported to onError (never thrown at anyone): a follow-up message was recorded in its task's
 * history and its caller answered at once (returnImmediately, or a stream), but its own run never
 * called the agent — an earlier run ended the task first (LIFE-02), or the run could not start.
 * The caller learns it from the task (its status); the operator learns it from this.
 */
export class UnprocessedMessageError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UnprocessedMessageError';
  }
}
