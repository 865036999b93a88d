/**
 * R24: the answer to a message whose run had not started when graceful shutdown began and was
 * not recorded in its task (a blocking follow-up queued behind the task's running run). Nothing
 * of it was stored, so sending it again — to another instance, or to this one once it is back —
 * is safe and processes it (its messageId is not claimed, R4). UNAVAILABLE on every binding
 * (HTTP 503, gRPC UNAVAILABLE, JSON-RPC -32000); the client retries it like a 503.
 */
import { A2AError } from '../protocol/errors.js';

export function serverShuttingDown(taskId: string): A2AError {
  return new A2AError('UNAVAILABLE', `The server is shutting down and did not process this message for task ${taskId}; send it again`, {
    metadata: { taskId },
  });
}
