/**
 * The `webhook-id` of a push delivery: `<taskId>.<seq>.c<configId>`, the same on every retry of
 * that event to that config, and different for each config of the task (PUSH-08: each config
 * gets its own deliveries, and a receiver deduplicating on the id must not drop the second).
 * Config ids may contain dots, which are written `%2E` (a config id cannot contain `%`), so the
 * id reads unambiguously from the right whatever the task id contains. Ids of servers before
 * 2026-12 were `<taskId>.<seq>`; they are still read.
 */

/** The id of the delivery of event `seq` of `taskId` to config `configId`. */
export function webhookId(taskId: string, seq: number, configId: string): string {
  return `${taskId}.${seq}.c${configId.replaceAll('.', '%2E')}`;
}

const FORMAT = /^(.+)\.(\d{1,15})(?:\.c([A-Za-z0-9_:~%-]{1,384}))?$/;

/** The parts of an id in either form, or undefined for an id of another format. */
export function parseWebhookId(id: string): { taskId: string; seq: number; configId?: string } | undefined {
  const m = FORMAT.exec(id);
  if (!m) return undefined;
  const parts: { taskId: string; seq: number; configId?: string } = { taskId: m[1] as string, seq: Number(m[2]) };
  if (m[3] !== undefined) parts.configId = m[3].replaceAll('%2E', '.');
  return parts;
}
