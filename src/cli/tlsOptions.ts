/**
 * `a2a serve --tls-cert/--tls-key/--tls-ca` (and a client's `--cert/--key/--cacert`): read and
 * checked before anything listens (or connects), so that files the listeners cannot serve with
 * are exit 2, never a listener whose every handshake fails:
 * the certificate and key must make a usable pair (OpenSSL's check, which compares keys of one
 * type only) whose public keys are the same (an RSA certificate with an EC key, say), and a CA
 * file must hold at least one certificate.
 */
import { X509Certificate, createPublicKey, type KeyObject } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { CliError, EXIT } from './errors.js';
import { readOptionFile } from './optionFile.js';
import { UsageError } from './usage.js';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer[];
}

/** The listeners' TLS material; undefined without --tls-cert. `clientCas` come from --tls-ca and the auth config (readCaFile). */
export function tlsOptions(values: { 'tls-cert'?: string | undefined; 'tls-key'?: string | undefined }, clientCas: Buffer[]): TlsFiles | undefined {
  const certPath = values['tls-cert'];
  const keyPath = values['tls-key'];
  if ((certPath === undefined) !== (keyPath === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  if (certPath === undefined || keyPath === undefined) {
    if (clientCas.length > 0) throw new UsageError('Client certificates (--tls-ca, or "ca" of an mtls scheme) need a TLS listener: give --tls-cert and --tls-key');
    return undefined;
  }
  const pair = readKeyPair({ flag: '--tls-cert', path: certPath }, { flag: '--tls-key', path: keyPath });
  return { ...pair, ...(clientCas.length > 0 ? { ca: clientCas } : {}) };
}

/** A file an option names: `--tls-cert cert.pem`. */
export interface OptionFile {
  flag: string;
  path: string;
}

/**
 * A certificate (chain) and its private key, read from the files `cert` and `key` name (`a2a
 * serve --tls-cert/--tls-key`, a client's `--cert/--key`) and checked to make a usable pair:
 * anything else is exit 2 naming the options.
 */
export function readKeyPair(cert: OptionFile, key: OptionFile): { cert: Buffer; key: Buffer } {
  const pair = { cert: readOptionFile(cert.flag, cert.path), key: readOptionFile(key.flag, key.path) };
  const flags = `${cert.flag}/${key.flag}`;
  try {
    createSecureContext(pair);
  } catch (error) {
    const reason = (error as { reason?: unknown }).reason;
    throw new CliError(`${flags}: not a usable certificate and key (${typeof reason === 'string' ? reason : (error as Error).message})`, EXIT.USAGE);
  }
  checkKeyPair(pair, flags);
  return pair;
}

/**
 * The public key of the (first) certificate is the private key's. OpenSSL accepts a key of
 * another type than the certificate's (an EC key with an RSA certificate) and every handshake
 * then fails, with nothing logged.
 */
function checkKeyPair(pair: { cert: Buffer; key: Buffer }, flags: string): void {
  const fromKey = createPublicKey(pair.key);
  const fromCert = new X509Certificate(pair.cert).publicKey;
  if (spki(fromKey).equals(spki(fromCert))) return;
  throw new CliError(
    `${flags}: the certificate's public key (${fromCert.asymmetricKeyType ?? 'unknown'}) does not match the private key (${fromKey.asymmetricKeyType ?? 'unknown'}): give the key the certificate was issued for`,
    EXIT.USAGE,
  );
}

function spki(key: KeyObject): Buffer {
  return key.export({ type: 'spki', format: 'der' });
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * A file of trusted CAs (`--tls-ca`, an mtls scheme's `ca`, a client's `--cacert`), given as `flag`: PEM holding
 * at least one certificate, each of which parses. Anything else (a private key, a certificate
 * request, DER) is exit 2: what it is for would otherwise trust no certificate at all.
 */
export function readCaFile(flag: string, path: string): Buffer {
  const bytes = readOptionFile(flag, path);
  const blocks = bytes.toString('latin1').match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new CliError(`${flag} ${path}: no certificate in it (expected PEM, -----BEGIN CERTIFICATE-----)`, EXIT.USAGE);
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new CliError(`${flag} ${path}: a certificate in it does not parse (${(error as Error).message})`, EXIT.USAGE);
    }
  }
  return bytes;
}
