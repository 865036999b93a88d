/**
 * grpc-js logs a failed bind itself ("E No address added out of total 1 resolved") before
 * rejecting with the same text, which `a2a serve` reports in one line. This logger drops that
 * one message and writes everything else as grpc-js's default logger does (GRPC_VERBOSITY still
 * decides what is logged).
 */
const BIND_FAILED = /^No address added out of total \d+ resolved$/;

export async function quietGrpcBindFailure(): Promise<void> {
  // Without grpc-js, serving gRPC fails later with its own message.
  const grpc = await import('@grpc/grpc-js').catch(() => undefined);
  grpc?.setLogger({
    error: (message?: unknown, ...rest: unknown[]) => {
      if (typeof message === 'string' && BIND_FAILED.test(message)) return;
      console.error(`E ${String(message)}`, ...rest);
    },
    info: (message?: unknown, ...rest: unknown[]) => console.error(`I ${String(message)}`, ...rest),
    debug: (message?: unknown, ...rest: unknown[]) => console.error(`D ${String(message)}`, ...rest),
  });
}
