/**
 * The four push config operations (PUSH-01..12) over a PushStore, plus the inline config of
 * SendMessage (PUSH-09). Every config is validated before it is stored: the webhook URL passes the
 * SSRF guard's static checks (R14; addresses are checked again at each delivery), header values
 * cannot smuggle line breaks, and sizes are bounded. Secret values never appear in error messages
 * (R23), and are sealed at rest when a key is configured.
 */
import { invalidField, TaskNotFoundError } from '../protocol/errors.js';
import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '../protocol/types.js';
import { SsrfBlockedError, vetUrl, type SsrfOptions } from '../net/ssrfGuard.js';
import { decodeOpaqueToken, encodeOpaqueToken, isCursorId } from '../server/pageToken.js';
import { PushConfigLimitError, type PushConfigCaller, type PushStore, type StoredPushConfig } from '../server/stores/pushStore.js';
import type { CredentialBox } from './credentialBox.js';

export interface PushConfigLimits {
  /** Configs per task (default 10). */
  maxConfigsPerTask: number;
  maxUrlLength: number;
  maxTokenLength: number;
  maxCredentialsLength: number;
}

export const DEFAULT_PUSH_CONFIG_LIMITS: PushConfigLimits = {
  maxConfigsPerTask: 10,
  maxUrlLength: 2048,
  maxTokenLength: 1024,
  maxCredentialsLength: 8192,
};

const ID_PATTERN = /^[A-Za-z0-9._:~-]{1,128}$/;
/** RFC 9110 token: an HTTP authentication scheme name. */
const SCHEME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface PushConfigServiceOptions {
  store: PushStore;
  box: CredentialBox;
  /** Resolves the task or throws TaskNotFoundError; another owner's task counts as missing. */
  requireTask: (tenant: string, taskId: string, owner: string) => Promise<unknown>;
  newId: () => string;
  ssrf: SsrfOptions;
  limits?: Partial<PushConfigLimits>;
  /** Told when a task gains a config, so delivery starts without waiting for a poll. */
  onConfigured?: (tenant: string, taskId: string) => void;
}

export class PushConfigService {
  private readonly limits: PushConfigLimits;

  constructor(private readonly options: PushConfigServiceOptions) {
    this.limits = { ...DEFAULT_PUSH_CONFIG_LIMITS, ...options.limits };
  }

  async create(req: TaskPushNotificationConfig, caller: PushConfigCaller): Promise<TaskPushNotificationConfig> {
    const tenant = req.tenant ?? '';
    const taskId = req.taskId ?? '';
    if (!taskId) throw invalidField('taskId', 'is required');
    await this.options.requireTask(tenant, taskId, caller.owner);
    const config = this.prepare(req, { taskId, field: '', protocolVersion: caller.protocolVersion });
    await this.put(tenant, this.options.box.seal(config));
    this.options.onConfigured?.(tenant, taskId);
    return present(config, tenant);
  }

  /** The four operations by name: the request handler's dispatch. */
  operation(op: string, req: unknown, caller: PushConfigCaller): Promise<unknown> {
    const owner = caller.owner;
    switch (op) {
      case 'createTaskPushNotificationConfig':
        return this.create(req as TaskPushNotificationConfig, caller);
      case 'getTaskPushNotificationConfig':
        return this.get(req as GetTaskPushNotificationConfigRequest, owner);
      case 'listTaskPushNotificationConfigs':
        return this.list(req as ListTaskPushNotificationConfigsRequest, owner);
      case 'deleteTaskPushNotificationConfig':
        return this.delete(req as DeleteTaskPushNotificationConfigRequest, owner);
      default:
        throw new Error(`not a push config operation: ${op}`);
    }
  }

  /**
   * PUSH-09: the inline config of SendMessage, validated. A new task gets it in the transaction
   * that creates it (returned); an existing task gets it now, before the message is processed.
   */
  async inline(
    config: TaskPushNotificationConfig,
    target: { tenant: string; taskId: string; existing: boolean; protocolVersion?: string },
  ): Promise<StoredPushConfig | undefined> {
    const prepared = this.prepareInline(config, target);
    if (target.existing) {
      await this.attach(target.tenant, prepared);
      return undefined;
    }
    // Known before the task is created, so its very first write wakes the delivery worker.
    this.options.onConfigured?.(target.tenant, target.taskId);
    return prepared;
  }

  /** Validates the inline config of SendMessage for the task it will belong to. */
  prepareInline(config: TaskPushNotificationConfig, target: { taskId: string; protocolVersion?: string | undefined }): StoredPushConfig {
    return this.options.box.seal(this.prepare(config, { ...target, field: 'configuration.taskPushNotificationConfig.' }));
  }

  /** Registers an inline config on an existing task (a follow-up message carrying one). */
  async attach(tenant: string, config: StoredPushConfig): Promise<void> {
    await this.put(tenant, config);
    this.options.onConfigured?.(tenant, config.taskId);
  }

  async get(req: GetTaskPushNotificationConfigRequest, owner: string): Promise<TaskPushNotificationConfig> {
    const tenant = req.tenant ?? '';
    await this.options.requireTask(tenant, req.taskId, owner);
    const config = await this.options.store.getPushConfig(tenant, req.taskId, req.id);
    // PUSH-03: an unknown config is reported as TaskNotFound, like an unknown task.
    if (!config) throw new TaskNotFoundError(`Push notification config ${req.id} not found for task ${req.taskId}`, { metadata: { taskId: req.taskId } });
    return present(this.options.box.open(config), tenant);
  }

  async list(req: ListTaskPushNotificationConfigsRequest, owner: string): Promise<ListTaskPushNotificationConfigsResponse> {
    const tenant = req.tenant ?? '';
    await this.options.requireTask(tenant, req.taskId, owner);
    const pageSize = Math.min(req.pageSize || 100, 100);
    const afterId = req.pageToken ? readToken(req.pageToken, req.taskId) : undefined;
    const page = await this.options.store.listPushConfigs(tenant, req.taskId, { pageSize, ...(afterId !== undefined ? { afterId } : {}) });
    const last = page.configs[page.configs.length - 1];
    return {
      configs: page.configs.map((c) => present(this.options.box.open(c), tenant)),
      nextPageToken: page.hasMore && last ? encodeOpaqueToken({ i: last.id, f: req.taskId }) : '',
    };
  }

  /** PUSH-07: idempotent; deleting an absent config of an existing task succeeds. */
  async delete(req: DeleteTaskPushNotificationConfigRequest, owner: string): Promise<Record<string, never>> {
    const tenant = req.tenant ?? '';
    await this.options.requireTask(tenant, req.taskId, owner);
    await this.options.store.deletePushConfig(tenant, req.taskId, req.id);
    return {};
  }

  private prepare(input: TaskPushNotificationConfig, target: { taskId: string; field: string; protocolVersion?: string | undefined }): StoredPushConfig {
    const f = target.field;
    const l = this.limits;
    if (input.url.length > l.maxUrlLength) throw invalidField(`${f}url`, `is longer than ${l.maxUrlLength} characters`);
    try {
      vetUrl(input.url, this.options.ssrf);
    } catch (error) {
      if (error instanceof SsrfBlockedError) throw invalidField(`${f}url`, `is not an allowed webhook URL: ${error.message}`);
      throw invalidField(`${f}url`, 'is not a valid URL');
    }
    if (input.id !== undefined && input.id !== '' && !ID_PATTERN.test(input.id)) {
      throw invalidField(`${f}id`, 'must be 1-128 characters of letters, digits and . _ : ~ -');
    }
    checkSecret(input.token, { field: `${f}token`, max: l.maxTokenLength });
    const auth = input.authentication;
    if (auth) {
      if (!SCHEME_PATTERN.test(auth.scheme)) throw invalidField(`${f}authentication.scheme`, 'must be an HTTP authentication scheme name such as Bearer');
      checkSecret(auth.credentials, { field: `${f}authentication.credentials`, max: l.maxCredentialsLength });
    }
    // A 0.3 config without an id is the task's own (id = taskId), as both 0.3 SDKs store it, inline or set.
    const id = input.id || (target.protocolVersion === '0.3' ? target.taskId : this.options.newId());
    const config: StoredPushConfig = { id, taskId: target.taskId, url: input.url };
    if (input.token !== undefined && input.token !== '') config.token = input.token;
    if (auth) config.authentication = auth.credentials === undefined ? { scheme: auth.scheme } : { scheme: auth.scheme, credentials: auth.credentials };
    if (target.protocolVersion === '0.3') config.dialect = '0.3';
    return config;
  }

  /** Stores a sealed config within the per-task limit, which the store checks atomically with the write. */
  private async put(tenant: string, config: StoredPushConfig): Promise<void> {
    const max = this.limits.maxConfigsPerTask;
    try {
      await this.options.store.putPushConfig(tenant, config, { maxPerTask: max });
    } catch (error) {
      if (error instanceof PushConfigLimitError) throw invalidField('taskId', `already has ${max} push notification configs (the most allowed)`);
      throw error;
    }
  }
}

/** A secret header value: bounded, no control characters (no header injection). Never echoed. */
function checkSecret(value: string | undefined, check: { field: string; max: number }): void {
  if (value === undefined) return;
  if (value.length > check.max) throw invalidField(check.field, `is longer than ${check.max} characters`);
  if (CONTROL.test(value)) throw invalidField(check.field, 'must not contain control characters');
}

function readToken(token: string, taskId: string): string {
  const p = decodeOpaqueToken(token, ['i', 'f']);
  if (!isCursorId(p.i)) throw invalidField('pageToken', 'is not a valid page token');
  if (p.f !== taskId) throw invalidField('pageToken', 'was issued for a different task');
  return p.i;
}

function present(stored: StoredPushConfig, tenant: string): TaskPushNotificationConfig {
  const { dialect: _dialect, ...config } = stored;
  return tenant ? { tenant, ...config } : config;
}
