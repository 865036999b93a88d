/**
 * `a2a serve` flags that become serveAgent options: each checked here (a bad value is a usage
 * error, exit 2) and turned into the option it sets, undefined when the flag is absent.
 */
import { intOption } from '../args.js';
import { UsageError } from '../usage.js';
import { TrustedProxies } from '../../net/trustedProxies.js';
import type { PushOptions } from '../../push/pushOptions.js';
import { webhookSecretKeys } from '../../push/webhookSignature.js';
import type { AbuseLimitOptions } from '../../server/abuseLimits.js';
import type { TaskLimits } from '../../server/taskLimits.js';
import type { GrpcListenerOptions } from '../../bindings/grpc/listener.js';

/** --no-compat: the handler option `compat03` (0.3 clients are served by default). */
export function compatOption(noCompat: boolean | undefined): { compat03?: boolean } {
  return noCompat ? { compat03: false } : {};
}

/** R25 limits from --rate-limit, --max-streams, --max-tasks-per-context (undefined: none set). */
export function abuseLimitOptions(values: { 'rate-limit'?: string; 'max-streams'?: string; 'max-tasks-per-context'?: string }): AbuseLimitOptions | undefined {
  const rate = intOption(values['rate-limit'], '--rate-limit', { min: 1 });
  const streams = intOption(values['max-streams'], '--max-streams', { min: 1 });
  const tasks = intOption(values['max-tasks-per-context'], '--max-tasks-per-context', { min: 1 });
  if (rate === undefined && streams === undefined && tasks === undefined) return undefined;
  return {
    ...(rate !== undefined ? { requestsPerSecond: rate } : {}),
    ...(streams !== undefined ? { maxStreamsPerCaller: streams } : {}),
    ...(tasks !== undefined ? { maxActiveTasksPerContext: tasks } : {}),
  };
}

/**
 * gRPC listener settings from --grpc-max-connection-age-ms and --grpc-max-streams-per-connection
 * (both need --grpc-port; absent: the listener's defaults, 30 min and 100).
 */
export function grpcListenerFlags(values: { 'grpc-port'?: string; 'grpc-max-connection-age-ms'?: string; 'grpc-max-streams-per-connection'?: string }): Partial<GrpcListenerOptions> {
  const maxConnectionAgeMs = intOption(values['grpc-max-connection-age-ms'], '--grpc-max-connection-age-ms', { min: 0, max: 2_000_000_000 });
  const maxConcurrentStreams = intOption(values['grpc-max-streams-per-connection'], '--grpc-max-streams-per-connection', { min: 1, max: 1_000_000 });
  const given = { ...(maxConnectionAgeMs !== undefined ? { maxConnectionAgeMs } : {}), ...(maxConcurrentStreams !== undefined ? { maxConcurrentStreams } : {}) };
  if (Object.keys(given).length > 0 && values['grpc-port'] === undefined) throw new UsageError('--grpc-max-connection-age-ms and --grpc-max-streams-per-connection need --grpc-port');
  return given;
}

/** --trust-proxy (repeatable, comma-separated): the proxies whose X-Forwarded-For is believed, checked here (exit 2). */
export function trustProxyOption(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const entries = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  if (entries.length === 0) throw new UsageError('--trust-proxy needs addresses or CIDR ranges, e.g. --trust-proxy 10.0.0.0/8');
  try {
    new TrustedProxies(entries);
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^trustProxy:/, '--trust-proxy:'));
  }
  return entries;
}

/** R16 caps from --max-history-messages, --max-history-chars, --max-list-response-chars (undefined: the defaults). */
export function taskLimitOptions(values: {
  'max-history-messages'?: string;
  'max-history-chars'?: string;
  'max-list-response-chars'?: string;
}): Partial<TaskLimits> | undefined {
  const flags = {
    maxHistoryMessages: intOption(values['max-history-messages'], '--max-history-messages', { min: 1 }),
    maxHistoryChars: intOption(values['max-history-chars'], '--max-history-chars', { min: 1 }),
    maxListResponseChars: intOption(values['max-list-response-chars'], '--max-list-response-chars', { min: 1 }),
  };
  const limits: Partial<TaskLimits> = {};
  for (const [name, value] of Object.entries(flags) as Array<[keyof TaskLimits, number | undefined]>) if (value !== undefined) limits[name] = value;
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/** Push settings from flags and the environment; secrets are checked here, never printed. */
export function pushOptions(values: {
  'allow-private-webhooks'?: boolean;
  'push-key'?: string;
  'webhook-secret'?: string[];
  'push-max-attempts'?: string;
  'push-backoff-ms'?: string;
}): PushOptions {
  const maxAttempts = intOption(values['push-max-attempts'], '--push-max-attempts', { min: 1 });
  const baseDelayMs = intOption(values['push-backoff-ms'], '--push-backoff-ms', { min: 1 });
  const key = values['push-key'] ?? process.env.A2A_PUSH_KEY;
  const secrets = values['webhook-secret'] ?? (process.env.A2A_WEBHOOK_SECRETS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  try {
    webhookSecretKeys(secrets, (i) => `webhook secret #${i + 1}`);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : 'invalid webhook secret');
  }
  return {
    allowPrivateWebhooks: values['allow-private-webhooks'] === true,
    ...(key ? { credentialKey: key } : {}),
    ...(secrets.length > 0 ? { signingSecrets: secrets } : {}),
    retry: { ...(maxAttempts !== undefined ? { maxAttempts } : {}), ...(baseDelayMs !== undefined ? { baseDelayMs } : {}) },
    onDelivery: (r) => {
      if (r.verdict.action === 'complete') return;
      const what = r.verdict.action === 'retry' ? `will retry in ${Math.round(r.verdict.delayMs / 100) / 10} s` : r.verdict.action === 'disable' ? 'config disabled' : 'dead letter';
      console.error(`a2a serve: push to ${r.url} (task ${r.taskId} #${r.seq}, attempt ${r.attempts}): ${r.verdict.error}; ${what}`);
    },
  };
}

/** How the listening output describes push delivery. */
export function pushLabel(push: PushOptions): string {
  const parts = ['on'];
  if (push.signingSecrets) parts.push('signed');
  if (push.credentialKey) parts.push('credentials sealed');
  if (push.allowPrivateWebhooks) parts.push('private addresses allowed');
  return parts.join(', ');
}
