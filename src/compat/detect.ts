/**
 * Which protocol version a request speaks (digest §5.1, §6 B1/B2/B3/B5).
 *
 * Decisions:
 * - The explicit version wins: the `A2A-Version` header, else the `A2A-Version` query parameter
 *   (B5: header first; a different query value is ignored). Patch numbers are dropped; an
 *   unparsable value is VersionNotSupportedError (B2), as is a version the endpoint does not serve.
 * - No (or an empty) version means 0.3 (VER-05), whatever the request looks like (strict, like the
 *   reference Python SDK). Opt-in `lenient`: a request whose structure is unambiguously 1.0 (a
 *   PascalCase JSON-RPC method) is taken as 1.0 when no version is given (B1).
 * - The structure never overrides an explicit version: a 0.3 method name (`message/send`) sent
 *   with `A2A-Version: 1.0`, or a 1.0 method name read as 0.3, is VersionNotSupportedError (the
 *   Python SDK does the same), whose metadata says which version the shape needs.
 * - REST paths cannot show 1.0 (a `/v1/...` path is also a 1.0 path under tenant `v1`), so for
 *   REST only the 0.3 route table gives a structural signal, and only when no version is given.
 */
import { VersionNotSupportedError } from '../protocol/errors.js';
import { parseRequestedVersion } from '../protocol/serviceParams.js';
import { isV03Method, matchV03RestRoute } from './methods.js';
import { isObj } from './read.js';

/** The two wire dialects: every 1.x version speaks the 1.0 one. */
export type Dialect = '0.3' | '1.0';

/** The JSON-RPC method names of A2A 1.0 (= the proto rpc names). */
export const V10_JSONRPC_METHODS: ReadonlySet<string> = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
]);

/** `message/send` & co. → 0.3; `SendMessage` & co. → 1.0; anything else → undefined. */
export function jsonRpcMethodDialect(method: unknown): Dialect | undefined {
  if (typeof method !== 'string') return undefined;
  if (isV03Method(method)) return '0.3';
  if (V10_JSONRPC_METHODS.has(method)) return '1.0';
  return undefined;
}

/** A 0.3 REST route → 0.3; otherwise undefined (a 1.0 path, or `/v1/...` under a tenant `v1`). */
export function restPathDialect(httpMethod: string, path: string): Dialect | undefined {
  return matchV03RestRoute(httpMethod, path).match ? '0.3' : undefined;
}

/**
 * Structural hints in a SendMessage body (params object): 0.3 has `kind` members, lowercase
 * roles, `parts[].file`, `blocking`, `pushNotificationConfig` (and the 0.3 proto dialect
 * `content`); 1.0 has `ROLE_*` with `parts`, `returnImmediately`, `taskPushNotificationConfig`.
 * Undefined when nothing tells. Advisory only (see the module comment).
 */
export function bodyDialect(params: unknown): Dialect | undefined {
  if (!isObj(params)) return undefined;
  const config = isObj(params.configuration) ? params.configuration : {};
  if ('blocking' in config || 'pushNotificationConfig' in config || 'pushNotification' in config) return '0.3';
  if ('returnImmediately' in config || 'taskPushNotificationConfig' in config) return '1.0';
  const message = isObj(params.message) ? params.message : isObj(params.request) ? params.request : undefined;
  if (!message) return undefined;
  if ('kind' in message || 'content' in message || message.role === 'user' || message.role === 'agent') return '0.3';
  const parts = Array.isArray(message.parts) ? message.parts : [];
  if (parts.some((p) => isObj(p) && ('kind' in p || 'file' in p))) return '0.3';
  if (typeof message.role === 'string' && message.role.startsWith('ROLE_') && parts.length > 0) return '1.0';
  return undefined;
}

export function dialectOfVersion(version: string): Dialect {
  return version === '0.3' ? '0.3' : '1.0';
}

export interface VersionSignals {
  /** The `A2A-Version` header (gRPC metadata `a2a-version`). */
  header?: string | null;
  /** The `A2A-Version` query parameter. */
  query?: string | null;
  /** The dialect the request's shape shows (jsonRpcMethodDialect, restPathDialect, bodyDialect). */
  structure?: Dialect;
}

export interface DetectOptions {
  /** Major.Minor versions the receiving endpoint serves, e.g. `['0.3', '1.0']`. */
  supported: readonly string[];
  /** Infer 1.0 from a 1.0 structure when no version is given (default false: spec-strict). */
  lenient?: boolean;
}

export interface DetectedVersion {
  /** Major.Minor. */
  version: string;
  dialect: Dialect;
  source: 'header' | 'query' | 'default' | 'structure';
}

function unsupported(message: string, metadata: Record<string, string>): VersionNotSupportedError {
  return new VersionNotSupportedError(message, { metadata });
}

/** Decides the version of a request, or throws VersionNotSupportedError (rules in the module comment). */
export function detectVersion(signals: VersionSignals, options: DetectOptions): DetectedVersion {
  const header = (signals.header ?? '').trim();
  const query = (signals.query ?? '').trim();
  const raw = header || query;
  const supportedVersions = options.supported.join(',');
  let detected: DetectedVersion;
  if (raw === '') {
    detected =
      options.lenient && signals.structure === '1.0'
        ? { version: '1.0', dialect: '1.0', source: 'structure' }
        : { version: '0.3', dialect: '0.3', source: 'default' };
  } else {
    const version = parseRequestedVersion(raw);
    if (version === undefined) {
      throw unsupported(`Protocol version ${JSON.stringify(raw.slice(0, 32))} is not a Major.Minor version; supported: ${options.supported.join(', ')}`, {
        requestedVersion: raw.slice(0, 32),
        supportedVersions,
      });
    }
    detected = { version, dialect: dialectOfVersion(version), source: header ? 'header' : 'query' };
  }
  if (!options.supported.includes(detected.version)) {
    const what = detected.source === 'default' ? '0.3 (no A2A-Version given)' : detected.version;
    throw unsupported(`Protocol version ${what} is not supported; supported: ${options.supported.join(', ')}`, {
      requestedVersion: detected.version,
      supportedVersions,
    });
  }
  if (signals.structure !== undefined && signals.structure !== detected.dialect) {
    // The parameter is the A2A-Version header over HTTP and `a2a-version` metadata over gRPC (SVC-02).
    const hint = signals.structure === '1.0' ? 'send A2A-Version: 1.0 (gRPC: metadata a2a-version: 1.0)' : 'send no A2A-Version (or 0.3)';
    const asked = detected.source === 'default' ? 'sends no A2A-Version, which means 0.3' : `asks for version ${detected.version}`;
    throw unsupported(`This request has the A2A ${signals.structure} shape but ${asked}; ${hint}`, {
      requestedVersion: detected.version,
      supportedVersions,
      requestShape: signals.structure,
    });
  }
  return detected;
}

/**
 * The dialect to answer in (also for errors raised before or by `detectVersion`): the request's
 * shape when known, else the version asked for (digest §5.1 step 3). Only no version (or an
 * empty one, VER-05) or one that reads as 0.3 is the 0.3 dialect: a malformed or conflicting
 * version (`1`, `1.0, 0.3`) is refused in the 1.0 dialect, the one that names such refusals.
 */
export function responseDialect(signals: VersionSignals): Dialect {
  if (signals.structure !== undefined) return signals.structure;
  const raw = (signals.header ?? '').trim() || (signals.query ?? '').trim();
  return raw === '' || parseRequestedVersion(raw) === '0.3' ? '0.3' : '1.0';
}
