/**
 * The push half of the store contract (issue 6). Push configs live beside their task, and the
 * outbox of deliveries is written in the same transaction as the events it announces (R11): a
 * store that implements PushStore must, inside `create()` and `append()` of its TaskStore, add one
 * pending delivery per (event, active config of the task). A crash can therefore never leave an
 * acknowledged event without its deliveries, and a restart picks the pending rows up again.
 *
 * Ordering (R13): per (tenant, task, config) only the pending delivery with the lowest seq is
 * ever handed out by `claimDeliveries`, so one webhook sees one task's events in order even when
 * a delivery needs many attempts. Different configs and tasks proceed independently.
 */
import type { StreamResponse, TaskPushNotificationConfig } from '../../protocol/types.js';

/** A stored config always has its id and task id; `tenant` is kept out of the JSON (it is the key). */
export type StoredPushConfig = TaskPushNotificationConfig & {
  id: string;
  taskId: string;
  /**
   * Set when an A2A 0.3 client registered the config: its webhook gets 0.3 payloads (the Task,
   * `application/json`, digest §5.7) instead of 1.0 StreamResponses. Never shown in config answers.
   */
  dialect?: '0.3';
};

/** Who registers a push config: the task owner, and the protocol version the call came in. */
export interface PushConfigCaller {
  owner: string;
  /** '0.3' when the call spoke A2A 0.3. */
  protocolVersion?: string;
}

export interface PushConfigPage {
  configs: StoredPushConfig[];
  /** True when configs after the last one returned exist. */
  hasMore: boolean;
}

export interface DeliveryKey {
  tenant: string;
  taskId: string;
  configId: string;
  seq: number;
}

/** One due delivery, handed to exactly one worker until `lockedUntil`. */
export interface PushDelivery extends DeliveryKey {
  /** The event, as stored in the task's log. */
  event: StreamResponse;
  /** The config as stored (credentials possibly encrypted by the caller's codec). */
  config: StoredPushConfig;
  /** Attempts already made before this claim (0 on the first). */
  attempts: number;
  /** When the delivery was enqueued (ISO 8601), for the max-age rule. */
  createdAt: string;
}

export interface ClaimOptions {
  /** Deliveries whose next attempt is at or before this instant are due. */
  now: Date;
  /** Most deliveries returned. */
  limit: number;
  /** Claimed rows are invisible to other claims until now + lockMs (a crashed worker's rows come back). */
  lockMs: number;
}

export interface DeadLetter extends DeliveryKey {
  attempts: number;
  error: string;
  createdAt: string;
}

/** A config not stored because its task already has `maxPerTask` others (PushStore.putPushConfig). */
export class PushConfigLimitError extends Error {
  override readonly name = 'PushConfigLimitError';

  constructor(readonly maxPerTask: number) {
    super(`the task already has ${maxPerTask} push notification configs (the most allowed)`);
  }
}

/** Options of PushStore.putPushConfig. */
export interface PutPushConfigOptions {
  /**
   * Refuse (PushConfigLimitError, nothing written) a config whose task already has this many
   * configs besides it. Counted and written atomically: concurrent puts cannot exceed it.
   */
  maxPerTask?: number;
}

export interface PushStore {
  /**
   * Creates or replaces (same tenant, taskId, id) a config (D3 upsert). Deliveries are enqueued
   * for events appended after this call. The task must exist (callers check); ids are unique per
   * task.
   */
  putPushConfig(tenant: string, config: StoredPushConfig, options?: PutPushConfigOptions): Promise<StoredPushConfig>;
  getPushConfig(tenant: string, taskId: string, id: string): Promise<StoredPushConfig | undefined>;
  /** Configs of a task ordered by id ascending, strictly after `afterId` when given. */
  listPushConfigs(tenant: string, taskId: string, page: { pageSize: number; afterId?: string }): Promise<PushConfigPage>;
  /** Removes the config and its pending deliveries (PUSH-07: nothing more is sent). False if absent. */
  deletePushConfig(tenant: string, taskId: string, id: string): Promise<boolean>;

  /** Due, unlocked head-of-line deliveries (lowest pending seq per tenant/task/config), locked for lockMs. */
  claimDeliveries(options: ClaimOptions): Promise<PushDelivery[]>;
  /** Acknowledged: the row is removed. */
  completeDelivery(key: DeliveryKey): Promise<void>;
  /** Failed, will retry: attempts + 1, unlocked, next attempt at `nextAttemptAt`. */
  retryDelivery(key: DeliveryKey, retry: { nextAttemptAt: Date; error: string }): Promise<void>;
  /**
   * Not attempted (its webhook host had no free slot, R12): unlocked and due again at
   * `nextAttemptAt`, attempts unchanged.
   */
  deferDelivery(key: DeliveryKey, next: { nextAttemptAt: Date }): Promise<void>;
  /** Given up (max attempts/age, permanent failure): kept as a dead letter, no longer claimed. */
  deadLetterDelivery(key: DeliveryKey, failure: { error: string }): Promise<void>;
  /** Earliest next attempt among pending deliveries, so an idle worker knows how long to sleep. */
  nextDeliveryDue(): Promise<Date | undefined>;
  /** Dead letters, newest first (inspection, tests, `a2a push dead`). */
  listDeadLetters(tenant: string, options?: { taskId?: string; limit?: number }): Promise<DeadLetter[]>;
}

export function isPushStore(store: object): store is PushStore {
  return typeof (store as Partial<PushStore>).claimDeliveries === 'function';
}
