/**
 * R16: the ErrorInfo `limit` values of a RESOURCE_EXHAUSTED refusal for a task whose history is
 * full. The server names the cap it hit (server/taskLimits.ts); the client does not retry these,
 * since the same message would get the same answer (client/retry.ts).
 */
export const HISTORY_MESSAGES_LIMIT = 'historyMessages';
export const HISTORY_CHARS_LIMIT = 'historyChars';
