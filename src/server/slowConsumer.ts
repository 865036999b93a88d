/**
 * R10: a stream whose reader fell further behind than the buffer allows is ended with this
 * error (INTERNAL on the wire, as before). Any client can cause it by not reading, so it is no
 * server fault: the bindings do not report it to onError (a slow client must not flood the logs).
 */
import { InternalError } from '../protocol/errors.js';

export class StreamConsumerTooSlowError extends InternalError {
  constructor() {
    super('Stream consumer too slow; reconnect with SubscribeToTask');
  }
}
