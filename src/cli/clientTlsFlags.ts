/**
 * The client commands' `--cert FILE --key FILE` (a client certificate, for an agent that requires
 * mutual TLS) and `--cacert FILE` (the CAs trusted for the agent's certificate instead of the
 * system's), named as curl names them: read and checked before any request, so that a file
 * that cannot be read or used is exit 2. The key is never printed.
 */
import type { ClientTls } from './clientCertFetch.js';
import { readCaFile, readKeyPair } from './tlsOptions.js';
import { UsageError } from './usage.js';

export const CLIENT_TLS_OPTIONS = {
  cert: { type: 'string' },
  key: { type: 'string' },
  cacert: { type: 'string' },
} as const;

export const CLIENT_TLS_HELP = `  --cert FILE        a PEM client certificate (chain), for agents requiring mutual TLS
  --key FILE         the PEM private key of --cert
  --cacert FILE      PEM CA(s) to trust for the agent's certificate, instead of the system's
`;

export interface ClientTlsFlags {
  cert?: string | undefined;
  key?: string | undefined;
  cacert?: string | undefined;
}

/** The TLS material the flags name, read and checked; undefined without any of them. */
export function clientTlsOf(flags: ClientTlsFlags): ClientTls | undefined {
  if ((flags.cert === undefined) !== (flags.key === undefined)) throw new UsageError('--cert and --key go together');
  const pair = flags.cert !== undefined && flags.key !== undefined ? readKeyPair({ flag: '--cert', path: flags.cert }, { flag: '--key', path: flags.key }) : undefined;
  const ca = flags.cacert === undefined ? undefined : readCaFile('--cacert', flags.cacert);
  if (!pair && !ca) return undefined;
  return { ...pair, ...(ca ? { ca } : {}) };
}
