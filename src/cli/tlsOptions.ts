/** `a2a serve --tls-cert/--tls-key/--tls-ca`: read and checked before anything listens. */
import { createSecureContext } from 'node:tls';
import { CliError, EXIT } from './errors.js';
import { readOptionFile } from './optionFile.js';
import { UsageError } from './usage.js';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer[];
}

/** The listeners' TLS material; undefined without --tls-cert. `clientCas` come from --tls-ca and the auth config. */
export function tlsOptions(values: { 'tls-cert'?: string | undefined; 'tls-key'?: string | undefined }, clientCas: Buffer[]): TlsFiles | undefined {
  const certPath = values['tls-cert'];
  const keyPath = values['tls-key'];
  if ((certPath === undefined) !== (keyPath === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  if (certPath === undefined || keyPath === undefined) {
    if (clientCas.length > 0) throw new UsageError('Client certificates (--tls-ca, or "ca" of an mtls scheme) need a TLS listener: give --tls-cert and --tls-key');
    return undefined;
  }
  const tls: TlsFiles = { cert: readOptionFile('--tls-cert', certPath), key: readOptionFile('--tls-key', keyPath), ...(clientCas.length > 0 ? { ca: clientCas } : {}) };
  try {
    createSecureContext({ cert: tls.cert, key: tls.key });
  } catch (error) {
    const reason = (error as { reason?: unknown }).reason;
    throw new CliError(`--tls-cert/--tls-key: not a usable certificate and key (${typeof reason === 'string' ? reason : (error as Error).message})`, EXIT.USAGE);
  }
  return tls;
}
