/**
 * Readiness of the PostgreSQL store (TaskStore.ping): `SELECT 1` on a pool connection, given up
 * when `signal` aborts — a pool whose connections are all busy, or a server that does not answer,
 * must not hold the probe. Nothing leaks: a connection the pool hands over after the check was
 * given up is released at once, and one whose `SELECT 1` did not answer is destroyed, not reused.
 * A connection failure is StoreUnavailableError (pgFailures.ts), as for every other query.
 */
import type { Pool, PoolClient } from 'pg';
import { StoreUnavailableError } from '../../protocol/errors.js';
import { storeFailure } from './pgFailures.js';

export async function pingPool(pool: Pool, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw gaveUp(signal);
  const connecting = pool.connect();
  let client: PoolClient;
  try {
    client = await untilAborted(connecting, signal);
  } catch (error) {
    // Still waiting for a connection: give it back whenever it comes.
    connecting.then((late) => late.release(), () => undefined);
    return storeFailure(error);
  }
  const query = client.query('SELECT 1');
  try {
    await untilAborted(query, signal);
  } catch (error) {
    query.catch(() => undefined);
    // The connection did not answer (or failed): destroyed rather than handed to the next query.
    client.release(true);
    return storeFailure(error);
  }
  client.release();
}

/** `promise`, or a rejection with StoreUnavailableError as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(gaveUp(signal));
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

function gaveUp(signal: AbortSignal): StoreUnavailableError {
  return StoreUnavailableError.from(signal.reason, 'The task store did not answer in time');
}
