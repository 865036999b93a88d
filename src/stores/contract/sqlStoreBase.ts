/**
 * What the SQL stores share above their engines: the PushStore and LeaseStore halves, answered
 * by the store's SqlOutbox and SqlLeases. Each store builds those two from its own statements;
 * this class only forwards to them, so the forwarding is written once for SQLite and PostgreSQL.
 */
import type { AcquireLease, Lease, LeaseKey, LeaseStore } from '../../server/stores/leaseStore.js';
import type { ClaimOptions, DeadLetter, DeliveryKey, PushConfigPage, PushDelivery, PushStore, PutPushConfigOptions, StoredPushConfig } from '../../server/stores/pushStore.js';
import type { SqlLeases } from './sqlLeases.js';
import type { SqlOutbox } from './sqlOutbox.js';

export abstract class SqlStoreBase implements PushStore, LeaseStore {
  /** The push half: configs, the delivery outbox and dead letters. */
  protected abstract readonly outbox: SqlOutbox;
  /** Task leases (scale-out): who runs a task, until when. */
  protected abstract readonly leases: SqlLeases;

  async putPushConfig(tenant: string, config: StoredPushConfig, options?: PutPushConfigOptions): Promise<StoredPushConfig> {
    return this.outbox.putPushConfig(tenant, config, options);
  }

  async getPushConfig(tenant: string, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    return this.outbox.getPushConfig(tenant, taskId, id);
  }

  async listPushConfigs(tenant: string, taskId: string, page: { pageSize: number; afterId?: string }): Promise<PushConfigPage> {
    return this.outbox.listPushConfigs(tenant, taskId, page);
  }

  async deletePushConfig(tenant: string, taskId: string, id: string): Promise<boolean> {
    return this.outbox.deletePushConfig(tenant, taskId, id);
  }

  async claimDeliveries(options: ClaimOptions): Promise<PushDelivery[]> {
    return this.outbox.claimDeliveries(options);
  }

  async completeDelivery(key: DeliveryKey): Promise<void> {
    return this.outbox.completeDelivery(key);
  }

  async retryDelivery(key: DeliveryKey, retry: { nextAttemptAt: Date; error: string }): Promise<void> {
    return this.outbox.retryDelivery(key, retry);
  }

  async deferDelivery(key: DeliveryKey, next: { nextAttemptAt: Date }): Promise<void> {
    return this.outbox.deferDelivery(key, next);
  }

  async deadLetterDelivery(key: DeliveryKey, failure: { error: string }): Promise<void> {
    return this.outbox.deadLetterDelivery(key, failure);
  }

  async nextDeliveryDue(): Promise<Date | undefined> {
    return this.outbox.nextDeliveryDue();
  }

  async listDeadLetters(tenant: string, options: { taskId?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    return this.outbox.listDeadLetters(tenant, options);
  }

  async acquireLease(input: AcquireLease): Promise<boolean> {
    return this.leases.acquireLease(input);
  }

  async renewLeases(owner: string, ttlMs: number): Promise<LeaseKey[]> {
    return this.leases.renewLeases(owner, ttlMs);
  }

  async releaseLease(tenant: string, taskId: string, owner: string): Promise<void> {
    return this.leases.releaseLease(tenant, taskId, owner);
  }

  async expiredLeases(limit: number): Promise<Lease[]> {
    return this.leases.expiredLeases(limit);
  }

  async takeOverLease(input: AcquireLease & { previousOwner: string }): Promise<boolean> {
    return this.leases.takeOverLease(input);
  }
}
