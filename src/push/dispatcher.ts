/**
 * The push delivery worker (R11–R13). It claims due head-of-line deliveries from the store's
 * outbox, POSTs each event to its webhook through the SSRF guard, and records the outcome: done,
 * retry later (backoff with full jitter, Retry-After), config disabled (410), or dead letter. It
 * never runs on a request's path: responses and streams do not wait for webhooks. Several
 * dispatchers (instances) may share a store: claims are exclusive until their lock expires.
 * A store that cannot be reached (StoreUnavailableError: a database outage, or another process
 * holding SQLite's write lock, which the SQLite store's dispatcher writes do not wait for) is
 * reported once until a claim succeeds again, and claims are tried again each poll interval.
 */
import { guardedFetch } from '../net/guardedFetch.js';
import { StoreUnavailableError } from '../protocol/errors.js';
import { redactUrl } from '../net/redactUrl.js';
import type { Task } from '../protocol/types.js';
import { SsrfBlockedError, addressBlock, type SsrfOptions } from '../net/ssrfGuard.js';
import type { DeliveryKey, PushDelivery, PushStore } from '../server/stores/pushStore.js';
import type { CredentialBox } from './credentialBox.js';
import { decide, DEFAULT_RETRY_POLICY, type AttemptResult, type RetryPolicy, type Verdict } from './deliveryPolicy.js';
import { deliveryRequest } from './deliveryRequest.js';
import { HostSlots } from './hostSlots.js';

export interface DispatcherOptions {
  store: PushStore;
  /** The task as it is now: the payload of configs registered over A2A 0.3 (deliveryRequest.ts). */
  readTask?: (tenant: string, taskId: string) => Promise<Task | undefined>;
  box: CredentialBox;
  ssrf: SsrfOptions;
  retry?: Partial<RetryPolicy>;
  /** Standard Webhooks secrets (`whsec_…`); every delivery is signed with each (rotation). */
  signingSecrets?: string[];
  /** Per attempt: connect + response (default 10 s, R12). */
  timeoutMs?: number;
  /** Deliveries in flight at once (default 32). */
  concurrency?: number;
  /** Deliveries in flight per webhook host name, whatever the port (default 4, R12). */
  perHostConcurrency?: number;
  /**
   * Deliveries in flight per resolved address (an IPv6 /64), whatever the names pointing at it
   * (default: perHostConcurrency, R12).
   */
  perAddressConcurrency?: number;
  /** How often the outbox is polled when nothing wakes the worker (default 1 s). */
  pollIntervalMs?: number;
  /** Told about every outcome; errors never carry credentials. */
  onDelivery?: (report: DeliveryReport) => void;
  /** Internal failures (store errors). */
  onError?: (error: unknown) => void;
}

export interface DeliveryReport extends DeliveryKey {
  /** The webhook URL, redacted (scheme://host[:port]/…, ../net/redactUrl.ts). */
  url: string;
  attempts: number;
  verdict: Verdict;
}

export class PushDispatcher {
  private readonly policy: RetryPolicy;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly hosts: HostSlots;
  private readonly addresses: HostSlots;
  private running = false;
  private loop: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  /** The store was unavailable and that was reported; reset by the next successful claim. */
  private storeDown = false;

  constructor(private readonly options: DispatcherOptions) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.hosts = new HostSlots(options.perHostConcurrency ?? 4);
    this.addresses = new HostSlots(options.perAddressConcurrency ?? options.perHostConcurrency ?? 4);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Something was enqueued: look at the outbox now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops claiming and waits for the attempts in flight (their rows stay consistent either way). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private get lockMs(): number {
    return (this.options.timeoutMs ?? 10_000) * 3 + 5_000;
  }

  private async run(): Promise<void> {
    const concurrency = this.options.concurrency ?? 32;
    while (this.running) {
      this.woken = false;
      let claimed: PushDelivery[] = [];
      let claimFailed = false;
      const free = concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          claimed = await this.options.store.claimDeliveries({ now: new Date(), limit: free, lockMs: this.lockMs });
          this.storeDown = false;
        } catch (error) {
          claimFailed = true;
          this.failed(error);
        }
      }
      let started = 0;
      const deferred: Promise<void>[] = [];
      for (const delivery of claimed) {
        const k = keyOf(delivery);
        if (this.inFlight.has(k)) continue;
        const host = hostOf(delivery.config.url);
        const slot = this.hosts.admit(host);
        if (!slot) {
          // Its host is saturated: back to the outbox, so the claim serves other hosts (R12).
          // Written after the loop, together, so no delivery waits to start behind these writes.
          deferred.push(this.defer(delivery, this.hosts.deferMs(host)));
          continue;
        }
        started++;
        const attempt = this.attempt(delivery, { host, slot }).finally(() => {
          this.inFlight.delete(k);
          this.wake();
        });
        this.inFlight.set(k, attempt);
      }
      await Promise.all(deferred);
      if (started > 0 && this.inFlight.size < concurrency) continue;
      await this.sleep(claimFailed);
    }
  }

  /**
   * A failed store call, to onError: a StoreUnavailableError once until a claim succeeds again
   * (an outage or a held lock would otherwise be reported every poll), anything else each time.
   */
  private failed(error: unknown): void {
    if (error instanceof StoreUnavailableError) {
      if (this.storeDown) return;
      this.storeDown = true;
    }
    this.options.onError?.(error);
  }

  /**
   * Until woken, the next due delivery, or the poll interval; after a failed claim, the poll
   * interval (a due delivery would otherwise have the claim tried again at once, in a loop).
   */
  private async sleep(claimFailed: boolean): Promise<void> {
    if (this.woken || !this.running) return;
    let delay = this.options.pollIntervalMs ?? 1000;
    if (!claimFailed && this.inFlight.size < (this.options.concurrency ?? 32)) {
      try {
        const due = await this.options.store.nextDeliveryDue();
        if (due) delay = Math.min(delay, Math.max(0, due.getTime() - Date.now()));
      } catch (error) {
        this.failed(error);
      }
    }
    if (this.woken || !this.running) return;
    await new Promise<void>((resolve) => {
      this.wakeUp = resolve;
      this.timer = setTimeout(resolve, delay);
      this.timer.unref?.();
    });
    clearTimeout(this.timer);
    this.wakeUp = undefined;
  }

  private async defer(delivery: PushDelivery, delayMs: number): Promise<void> {
    try {
      await this.options.store.deferDelivery(delivery, { nextAttemptAt: new Date(Date.now() + delayMs) });
    } catch (error) {
      // Its claim's lock runs out instead, and it is claimed again then.
      this.failed(error);
    }
  }

  /**
   * One attempt, once `slot` on its host is held. Its resolved address must have a free slot
   * too, or it is not made: the delivery goes back to the outbox, its attempts unchanged (R12).
   */
  private async attempt(delivery: PushDelivery, on: { host: string; slot: Promise<void> }): Promise<void> {
    const attempts = delivery.attempts + 1;
    let verdict: Verdict;
    let url = delivery.config.url;
    await on.slot;
    const startedAt = Date.now();
    const address = this.addressSlot();
    let busy: AddressBusy | undefined;
    try {
      const config = this.options.box.open(delivery.config);
      url = config.url;
      const result = await this.send(delivery, config, address.take);
      verdict = decide({ result, attempts, ageMs: Date.now() - Date.parse(delivery.createdAt), policy: this.policy });
    } catch (error) {
      if (error instanceof AddressBusy) busy = error;
      // A config that cannot be opened (wrong key) will not open on retry either.
      verdict = { action: 'dead', error: error instanceof Error ? error.message : 'delivery failed' };
    } finally {
      const durationMs = busy ? undefined : Date.now() - startedAt;
      this.hosts.release(on.host, durationMs);
      address.release(durationMs);
    }
    if (busy) return this.defer(delivery, this.addresses.deferMs(busy.block));
    try {
      await this.record(delivery, verdict);
    } catch (error) {
      // Unrecorded: its claim's lock runs out, and it is attempted again then.
      this.failed(error);
    }
    this.options.onDelivery?.({ tenant: delivery.tenant, taskId: delivery.taskId, configId: delivery.configId, seq: delivery.seq, url: redactUrl(url), attempts, verdict });
  }

  /** The address slot of one attempt, taken once its address is resolved and vetted. */
  private addressSlot(): { take: (address: string) => void; release: (durationMs: number | undefined) => void } {
    let held: string | undefined;
    return {
      take: (address) => {
        const block = addressBlock(address);
        if (!this.addresses.tryAdmit(block)) throw new AddressBusy(block);
        held = block;
      },
      release: (durationMs) => {
        if (held !== undefined) this.addresses.release(held, durationMs);
      },
    };
  }

  private async send(delivery: PushDelivery, config: PushDelivery['config'], beforeConnect: (address: string) => void): Promise<AttemptResult> {
    // A task that cannot be read now is sent as the 0.3 form of the event itself.
    const task = config.dialect === '0.3' ? await this.options.readTask?.(delivery.tenant, delivery.taskId).catch(() => undefined) : undefined;
    const { body, headers } = deliveryRequest({ delivery, config, task, signingSecrets: this.options.signingSecrets ?? [] });
    try {
      const res = await guardedFetch(config.url, {
        method: 'POST',
        headers,
        body,
        timeoutMs: this.options.timeoutMs ?? 10_000,
        // PUSHD-05: a 2xx acknowledges receipt, whatever the body does after the headers.
        statusOnly: true,
        beforeConnect,
        ssrf: this.options.ssrf,
      });
      const retryAfter = res.headers['retry-after'];
      return { kind: 'response', status: res.status, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
    } catch (error) {
      if (error instanceof AddressBusy) throw error;
      // A lookup that failed (ENOTFOUND, EAI_AGAIN: a resolver outage) may work later: retried
      // like a refused connection. Only an address the guard refuses is final.
      if (error instanceof SsrfBlockedError && error.reason === 'resolve') return { kind: 'network', error: `network error: ${error.detail}` };
      if (error instanceof SsrfBlockedError) return { kind: 'blocked', error: `webhook address not allowed: ${error.message}` };
      return { kind: 'network', error: networkError(error) };
    }
  }

  private async record(delivery: PushDelivery, verdict: Verdict): Promise<void> {
    const key: DeliveryKey = { tenant: delivery.tenant, taskId: delivery.taskId, configId: delivery.configId, seq: delivery.seq };
    const store = this.options.store;
    switch (verdict.action) {
      case 'complete':
        return store.completeDelivery(key);
      case 'retry':
        return store.retryDelivery(key, { nextAttemptAt: new Date(Date.now() + verdict.delayMs), error: verdict.error });
      case 'dead':
        return store.deadLetterDelivery(key, { error: verdict.error });
      case 'disable':
        await store.deadLetterDelivery(key, { error: verdict.error });
        await store.deletePushConfig(delivery.tenant, delivery.taskId, delivery.configId);
    }
  }
}

/** The attempt was not made: its resolved address had no free slot. */
class AddressBusy extends Error {
  constructor(readonly block: string) {
    super(`every slot of ${block} is busy`);
  }
}

function keyOf(d: DeliveryKey): string {
  return `${d.tenant}\u0000${d.taskId}\u0000${d.configId}\u0000${d.seq}`;
}

/** The host name without the port: one host's many ports share its slots (R12). */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/\.+$/, '');
  } catch {
    return url;
  }
}

function networkError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'webhook did not answer in time';
  return typeof code === 'string' ? `network error ${code}` : 'network error';
}
