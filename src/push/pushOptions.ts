/**
 * Push notification settings of a server (`RequestHandlerOptions.push`), and the one place that
 * turns them into the config service and the delivery worker.
 */
import type { SsrfOptions } from '../net/ssrfGuard.js';
import { isPushStore, type PushStore } from '../server/stores/pushStore.js';
import type { StoredEvent, TaskStore } from '../server/stores/taskStore.js';
import { isTerminalState } from '../protocol/taskStates.js';
import { taskKey } from '../server/taskKey.js';
import { CredentialBox } from './credentialBox.js';
import type { RetryPolicy } from './deliveryPolicy.js';
import { PushDispatcher, type DeliveryReport } from './dispatcher.js';
import { PushConfigService, type PushConfigLimits } from './pushConfigs.js';
import { webhookSecretKeys } from './webhookSignature.js';

export interface PushOptions {
  /**
   * Allow webhooks on loopback, private and link-local addresses (development only, the CLI's
   * `--allow-private-webhooks`). Off by default: such URLs are refused (R14).
   */
  allowPrivateWebhooks?: boolean;
  /** DNS resolver for the SSRF guard (tests). */
  lookup?: SsrfOptions['lookup'];
  /** Key sealing stored tokens and credentials (32 bytes as base64/hex, or a passphrase). */
  credentialKey?: string;
  /**
   * Standard Webhooks signing secrets (`whsec_…`); every one signs (rotation: old and new).
   * Checked when the push runtime is created: one that is not a `whsec_` secret (an empty
   * string from an unset variable, say) throws there, naming its index, never its value.
   */
  signingSecrets?: string[];
  /** Run the delivery worker in this process (default true). */
  deliver?: boolean;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  /**
   * Ignored: a delivery's outcome is its status line (PUSHD-05), and no response body is read.
   * @deprecated
   */
  maxResponseBytes?: number;
  concurrency?: number;
  /** Deliveries in flight per webhook host name, whatever the port (default 4). */
  perHostConcurrency?: number;
  /** Deliveries in flight per resolved address (IPv6: per /64), whatever the names (default: perHostConcurrency). */
  perAddressConcurrency?: number;
  pollIntervalMs?: number;
  limits?: Partial<PushConfigLimits>;
  /** Every delivery outcome (no secrets in it). */
  onDelivery?: (report: DeliveryReport) => void;
  /**
   * What runs push: `createPushRuntime` (exported by `a2a-kit/node` as `nodePushRuntime`; the
   * delivery worker needs node:http). `serveAgent()` and `a2a serve` supply it; a handler built
   * elsewhere whose card declares push must pass it.
   */
  runtime?: PushRuntimeFactory;
}

export interface PushRuntimeInput {
  store: TaskStore;
  options: PushOptions;
  requireTask: (tenant: string, taskId: string, owner: string) => Promise<unknown>;
  newId: () => string;
  onError?: ((error: unknown) => void) | undefined;
}

export type PushRuntimeFactory = (input: PushRuntimeInput) => PushRuntime;

export interface PushRuntime {
  store: PushStore;
  configs: PushConfigService;
  dispatcher: PushDispatcher | undefined;
  /**
   * Told after every task write (TaskWriter's hook) when a worker runs here: a write to a task
   * known to have configs wakes the worker at once instead of at its next poll.
   */
  onWritten: ((tenant: string, taskId: string, events: StoredEvent[]) => void) | undefined;
}

export function createPushRuntime(input: PushRuntimeInput): PushRuntime {
  const { store, options } = input;
  if (!isPushStore(store)) throw new Error('capabilities.pushNotifications: the configured task store cannot keep push configs');
  checkSigningSecrets(options.signingSecrets);
  const box = new CredentialBox(options.credentialKey);
  const ssrf: SsrfOptions = { allowPrivate: options.allowPrivateWebhooks === true, ...(options.lookup ? { lookup: options.lookup } : {}) };
  const tasks = new Set<string>();
  const dispatcher =
    options.deliver === false
      ? undefined
      : new PushDispatcher({
          store,
          readTask: async (tenant, taskId) => (await input.store.get(tenant, taskId))?.task,
          box,
          ssrf,
          ...pick(options),
          ...(input.onError ? { onError: input.onError } : {}),
        });
  const configs = new PushConfigService({
    store,
    box,
    ssrf,
    requireTask: input.requireTask,
    newId: input.newId,
    ...(options.limits ? { limits: options.limits } : {}),
    onConfigured: (tenant, taskId) => {
      tasks.add(taskKey(tenant, taskId));
      dispatcher?.wake();
    },
  });
  dispatcher?.start();
  const onWritten = dispatcher
    ? (tenant: string, taskId: string, events: StoredEvent[]) => {
        const k = taskKey(tenant, taskId);
        if (!tasks.has(k)) return;
        dispatcher.wake();
        // A finished task gets no more events: stop tracking it.
        if (events.some((e) => 'statusUpdate' in e.event && isTerminalState(e.event.statusUpdate.status.state))) tasks.delete(k);
      }
    : undefined;
  return { store, configs, dispatcher, onWritten };
}

/** A bad secret would dead-letter every delivery: refuse it at construction instead. */
function checkSigningSecrets(secrets: readonly string[] | undefined): void {
  if (secrets === undefined) return;
  try {
    webhookSecretKeys(secrets, (i) => `push.signingSecrets[${i}]`);
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : String(error));
  }
}

function pick(o: PushOptions): Partial<ConstructorParameters<typeof PushDispatcher>[0]> {
  const out: Partial<ConstructorParameters<typeof PushDispatcher>[0]> = {};
  if (o.retry) out.retry = o.retry;
  if (o.signingSecrets) out.signingSecrets = o.signingSecrets;
  if (o.timeoutMs !== undefined) out.timeoutMs = o.timeoutMs;
  if (o.concurrency !== undefined) out.concurrency = o.concurrency;
  if (o.perHostConcurrency !== undefined) out.perHostConcurrency = o.perHostConcurrency;
  if (o.perAddressConcurrency !== undefined) out.perAddressConcurrency = o.perAddressConcurrency;
  if (o.pollIntervalMs !== undefined) out.pollIntervalMs = o.pollIntervalMs;
  if (o.onDelivery) out.onDelivery = o.onDelivery;
  return out;
}
