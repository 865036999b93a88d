/**
 * A listener of `a2a serve` that cannot start, in one line with exit 4 (as `a2a webhook listen`):
 * the port is in use, needs privileges, or --host is not an address of this machine. grpc-js
 * reports its bind failure as "No address added out of total 1 resolved errors: [listen
 * EADDRINUSE: …]", without a code.
 */
import { CliError, EXIT } from './errors.js';

interface Listener {
  flag: '--port' | '--grpc-port';
  host: string;
  port: number | undefined;
}

const WHY: Record<string, (l: Listener) => string> = {
  EADDRINUSE: (l) => `${l.flag === '--grpc-port' ? 'gRPC port' : 'port'} ${l.port} is in use on ${l.host}: stop what listens there or choose another ${l.flag}`,
  EACCES: (l) => `${l.flag === '--grpc-port' ? 'gRPC port' : 'port'} ${l.port} needs privileges: choose another ${l.flag} (above 1023)`,
  EADDRNOTAVAIL: (l) => `cannot listen on --host ${l.host}: not an address of this machine`,
};

/** The CliError for a listen failure of the HTTP or gRPC listener, else undefined. */
export function listenFailure(error: unknown, at: { host: string; port: number; grpcPort?: number | undefined }): CliError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  const http = typeof code === 'string' ? WHY[code] : undefined;
  if (http) return new CliError(http({ flag: '--port', host: at.host, port: at.port }), EXIT.CLIENT);
  const grpcCode = /^No address added out of total \d+ resolved errors: \[listen (E[A-Z]+)/.exec(error.message)?.[1];
  const grpc = grpcCode === undefined ? undefined : WHY[grpcCode];
  if (grpc) return new CliError(grpc({ flag: '--grpc-port', host: at.host, port: at.grpcPort }), EXIT.CLIENT);
  return undefined;
}
