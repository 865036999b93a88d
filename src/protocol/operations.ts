/**
 * The eleven operations, derived from the generated service descriptor: the camelCase name
 * used by the handler, client and CLI; the rpc name used by JSON-RPC and gRPC; the request
 * schema; whether it streams. Semantic checks that the proto cannot express live here too.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import { A2AService } from '../gen/a2a_pb.js';
import { decodeMessage, type DecodeLimits } from './decode.js';
import { RESERVED_TENANT_PROBLEM, isReservedTenantName } from './tenantNames.js';
import type { OperationName, OperationRequests } from './types.js';

export interface OperationInfo {
  name: OperationName;
  /** The proto rpc name, which is also the JSON-RPC method. */
  rpc: string;
  request: DescMessage;
  streaming: boolean;
}

type Fail = (field: string, description: string) => void;

function nonNegative(value: number | undefined, field: string, fail: Fail): void {
  if (value !== undefined && value < 0) fail(field, 'must not be negative');
}

/** Checks that the proto cannot express (HIST-04, LIST-05, C3). */
const CHECKS: { [K in OperationName]?: (value: OperationRequests[K], fail: Fail) => void } = {
  sendMessage: checkSendMessage,
  sendStreamingMessage: checkSendMessage,
  getTask: (r, fail) => nonNegative(r.historyLength, 'historyLength', fail),
  listTasks: (r, fail) => {
    nonNegative(r.historyLength, 'historyLength', fail);
    if (r.pageSize !== undefined && (r.pageSize < 1 || r.pageSize > 100)) fail('pageSize', 'must be between 1 and 100');
  },
  listTaskPushNotificationConfigs: (r, fail) => nonNegative(r.pageSize, 'pageSize', fail),
};

function checkSendMessage(r: OperationRequests['sendMessage'], fail: Fail): void {
  if (r.message.role !== 'ROLE_USER') fail('message.role', 'must be ROLE_USER for a client message');
  nonNegative(r.configuration?.historyLength, 'configuration.historyLength', fail);
  if (r.configuration?.taskPushNotificationConfig?.taskId) {
    fail('configuration.taskPushNotificationConfig.taskId', 'must be empty: the task does not exist yet');
  }
}

/**
 * Every operation's checks: a `tenant` the HTTP+JSON binding could not address is refused on
 * every binding (TENANT-08), whether or not the server hosts tenants, so no task is created that
 * REST can never reach. An absent or empty tenant costs one falsy test.
 */
function checksOf<K extends OperationName>(op: K): (value: OperationRequests[K], fail: Fail) => void {
  const own = CHECKS[op] as ((value: OperationRequests[K], fail: Fail) => void) | undefined;
  return (value, fail) => {
    if (value.tenant && isReservedTenantName(value.tenant)) fail('tenant', RESERVED_TENANT_PROBLEM);
    own?.(value, fail);
  };
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

export const OPERATIONS: ReadonlyMap<OperationName, OperationInfo> = new Map(
  A2AService.methods.map((m) => {
    const name = lowerFirst(m.name) as OperationName;
    return [name, { name, rpc: m.name, request: m.input, streaming: m.methodKind === 'server_streaming' }];
  }),
);

/** Each operation's checks, made once. */
const ALL_CHECKS: ReadonlyMap<OperationName, (value: never, fail: Fail) => void> = new Map([...OPERATIONS.keys()].map((op) => [op, checksOf(op)]));

const BY_RPC = new Map([...OPERATIONS.values()].map((op) => [op.rpc, op]));

export function operationByRpc(rpc: string): OperationInfo | undefined {
  return BY_RPC.get(rpc);
}

/** Validates and normalizes the request of `op`; throws InvalidParamsError with field violations. */
export function decodeRequest<K extends OperationName>(op: K, input: unknown, limits?: DecodeLimits): OperationRequests[K] {
  const info = OPERATIONS.get(op);
  if (!info) throw new Error(`unknown operation ${op}`);
  return decodeMessage<OperationRequests[K]>(info.request, input, { limits, check: ALL_CHECKS.get(op) as (value: OperationRequests[K], fail: Fail) => void });
}
