/**
 * Exit codes of the `a2a` client commands, and how failures are reported.
 *
 *   0  success
 *   1  unexpected internal error (a bug)
 *   2  usage error (bad option or argument, or an unavailable binding)
 *   3  protocol error: the agent answered with an A2A error (TaskNotFound, …), or the client
 *      refused a call the agent's protocol version lacks (ListTasks to an A2A 0.3 agent)
 *   4  client error: unreachable, timeout, bad card, no usable interface, broken stream, …, or
 *      the agent answered UNAVAILABLE (its store is out of reach for now: retry)
 *   5  the task ended FAILED, REJECTED or CANCELED (`a2a cancel`: CANCELED is success)
 */
import { A2AClientError, responseInfo, wasNotSent } from '../client/errors.js';
import { A2AError } from '../protocol/errors.js';
import type { Task } from '../protocol/types.js';
import { http2AnswerText } from './grpcAddressHint.js';
import { grpcCodeName, grpcCodeOf } from './grpcStatus.js';
import { redactSecrets } from './redact.js';
import { tlsFailureText } from './tlsFailure.js';
import { UsageError } from './usage.js';

export const EXIT = { OK: 0, INTERNAL: 1, USAGE: 2, PROTOCOL: 3, CLIENT: 4, TASK: 5 } as const;

/** A failure with a chosen exit code, reported without the command's help. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export { UsageError };

const UNSUCCESSFUL = new Set(['TASK_STATE_FAILED', 'TASK_STATE_REJECTED', 'TASK_STATE_CANCELED']);

/** 5 for a task that ended FAILED, REJECTED or CANCELED; 0 otherwise (working and interrupted tasks included). */
export function taskExitCode(task: Task | undefined): number {
  return task && UNSUCCESSFUL.has(task.status.state) ? EXIT.TASK : EXIT.OK;
}

/** UsageError (this module's, or `a2a serve`'s own class of that name) or a parseArgs error. */
export function isUsageError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error instanceof UsageError ||
    error.constructor.name === 'UsageError' ||
    ('code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
  );
}

export function exitCodeOf(error: unknown): number {
  // UNAVAILABLE (the agent's store is out of reach for now) is a "try again", as for an unreachable agent.
  if (A2AError.is(error)) return error.reason === 'UNAVAILABLE' ? EXIT.CLIENT : EXIT.PROTOCOL;
  if (A2AClientError.is(error)) return EXIT.CLIENT;
  if (error instanceof CliError) return error.exitCode;
  if (isUsageError(error)) return EXIT.USAGE;
  return EXIT.INTERNAL;
}

export interface ErrorReport {
  /** `protocol` (A2AError), `client` (A2AClientError, or exit 4 for the setting: a port in use), `usage` or `internal` (exit 1). */
  type: 'protocol' | 'client' | 'usage' | 'internal';
  /** The A2A reason (TASK_NOT_FOUND…) or the client error code (NETWORK…). */
  code?: string;
  /** A protocol error the client raised itself (ListTasks to an A2A 0.3 agent): nothing was sent. */
  notSent?: true;
  message: string;
  /** HTTP status, when the error came from an HTTP response. */
  status?: number;
  /** gRPC status code (14 for UNAVAILABLE), when the error came from a gRPC call. */
  grpcCode?: number;
  metadata?: Record<string, string>;
  fieldViolations?: { field: string; description: string }[];
  exitCode: number;
}

/** The innermost cause's message (`connect ECONNREFUSED 127.0.0.1:9`), when it adds something. */
function rootCause(error: Error): string | undefined {
  let cause: unknown = error.cause;
  let message: string | undefined;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++) {
    // A failed TLS handshake, an HTTP/2 answer (a gRPC port): said plainly, with what to do.
    const known = tlsFailureText(cause) ?? http2AnswerText(cause);
    if (known) message = known;
    else if (cause.message && cause.message !== 'fetch failed') message = cause.message;
    else if ('code' in cause && typeof cause.code === 'string') message = cause.code;
    cause = cause.cause;
  }
  return message && message !== error.message ? message : undefined;
}

/** grpc-js ends an UNAVAILABLE's details with an empty "Resolution note: ". */
const EMPTY_GRPC_NOTE = /\.?\s*Resolution note:\s*$/;

/**
 * The report of `error`, with no URL in it showing a user name or password, and none of the
 * credential values in `secrets` (`--api-key`, `A2A_TOKEN`: Cli.secrets) anywhere in it (R23).
 */
export function reportOf(error: unknown, secrets: readonly (string | undefined)[] = []): ErrorReport {
  const report = reportWithUrls(error);
  const mask = (text: string) => redactSecrets(text, secrets);
  report.message = mask(report.message);
  if (report.metadata) report.metadata = Object.fromEntries(Object.entries(report.metadata).map(([name, value]) => [name, mask(value)]));
  if (report.fieldViolations) report.fieldViolations = report.fieldViolations.map(({ field, description }) => ({ field, description: mask(description) }));
  return report;
}

function reportWithUrls(error: unknown): ErrorReport {
  const exitCode = exitCodeOf(error);
  const grpcCode = grpcCodeOf(error);
  if (A2AError.is(error)) {
    const report: ErrorReport = { type: 'protocol', code: error.reason, message: error.message, exitCode };
    if (wasNotSent(error)) report.notSent = true;
    // The HTTP status, when it says something (JSON-RPC errors arrive with 200); over gRPC the
    // status code, not the HTTP status responseInfo gives as its equivalent.
    const status = responseInfo(error)?.status;
    if (grpcCode !== undefined) report.grpcCode = grpcCode;
    else if (status !== undefined && status >= 400) report.status = status;
    if (Object.keys(error.metadata).length) report.metadata = error.metadata;
    if (error.fieldViolations.length) report.fieldViolations = error.fieldViolations;
    return report;
  }
  if (A2AClientError.is(error)) {
    // A timeout or abort says it all; the aborted fetch underneath would only confuse. A gRPC
    // status's message is the details this error already says.
    const cause = error.code === 'TIMEOUT' || error.code === 'ABORTED' || grpcCode !== undefined ? undefined : rootCause(error);
    const message = cause ? `${error.message} (${cause})` : error.message;
    const report: ErrorReport = { type: 'client', code: error.code, message: message.replace(EMPTY_GRPC_NOTE, ''), exitCode };
    if (grpcCode !== undefined) report.grpcCode = grpcCode;
    else if (error.status !== undefined) report.status = error.status;
    return report;
  }
  const message = error instanceof Error ? error.message : String(error);
  // Exit 4 without a client error: the machine or network refused (a port in use, a database down).
  const type = exitCode === EXIT.USAGE ? 'usage' : exitCode === EXIT.CLIENT ? 'client' : 'internal';
  return { type, message, exitCode };
}

/** One line (plus field violations) for stderr. */
export function errorText(report: ErrorReport): string {
  const head = report.code ? `${report.code}: ${report.message}` : report.message;
  const grpc = report.grpcCode === undefined ? undefined : `gRPC ${grpcCodeName(report.grpcCode)}`;
  const status =
    report.status !== undefined && !head.includes(`HTTP ${report.status}`) ? ` [HTTP ${report.status}]` : grpc && !head.includes(grpc) ? ` [${grpc}]` : '';
  const lines = [`${head}${status}`];
  for (const v of report.fieldViolations ?? []) lines.push(`  ${v.field}: ${v.description}`);
  return lines.join('\n');
}
