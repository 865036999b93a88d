/**
 * The gRPC status behind an error, for reports: the gRPC transport keeps the grpc-js
 * ServiceError ({code, details, metadata}) as the cause. Its code is not an HTTP status, and its
 * message repeats the details the error already carries. No grpc-js import: the client commands
 * load it only with --binding grpc.
 */
import { GRPC_STATUS_CODES } from '../protocol/errorTable.js';

const NAMES = new Map(Object.entries(GRPC_STATUS_CODES).map(([name, code]) => [code, name]));

/** The status code of the gRPC call `error` came from, or undefined. */
export function grpcCodeOf(error: unknown): number | undefined {
  const cause = error instanceof Error ? (error.cause as Record<string, unknown> | undefined) : undefined;
  if (!(cause instanceof Error)) return undefined;
  const { code, details, metadata } = cause as unknown as Record<string, unknown>;
  return typeof code === 'number' && typeof details === 'string' && typeof metadata === 'object' ? code : undefined;
}

/** UNAVAILABLE for 14. */
export function grpcCodeName(code: number): string {
  return NAMES.get(code) ?? String(code);
}
