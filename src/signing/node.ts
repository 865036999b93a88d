/**
 * Node side of card signing: key files (PEM PKCS#8 or JWK JSON) for `a2a serve --sign-key`,
 * key generation for `a2a keys generate`, and a JWKS fetcher that goes through the SSRF guard
 * (R14) for servers and the CLI.
 */
import { createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { exportJWK, exportPKCS8, generateKeyPair, type JWK } from 'jose';
import { guardedFetch } from '../net/guardedFetch.js';
import { vetUrl, type SsrfOptions } from '../net/ssrfGuard.js';
import { MAX_JWKS_BYTES, type Jwks, type JwksFetcher } from './cardSignature.js';
import { algForJwk, jwksOf, signAgentCard, thumbprintKid, type CardSigner } from './cardSigner.js';

export interface SigningKey {
  /** The private key as a JWK. */
  jwk: JWK;
  kid: string;
  alg: string;
}

/** Reads a private key: a PEM file (PKCS#8, SEC1 or PKCS#1) or a JWK JSON file. */
export async function loadSigningKey(path: string, options: { kid?: string; alg?: string } = {}): Promise<SigningKey> {
  const text = (await readFile(path, 'utf8')).trim();
  let jwk: JWK;
  if (text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${path} is neither a PEM private key nor a JWK`);
    }
    const keys = (parsed as { keys?: unknown }).keys;
    jwk = (Array.isArray(keys) ? keys[0] : parsed) as JWK;
  } else if (text.includes('-----BEGIN')) {
    jwk = createPrivateKey(text).export({ format: 'jwk' }) as JWK;
  } else {
    throw new Error(`${path} is neither a PEM private key nor a JWK`);
  }
  if (typeof jwk?.kty !== 'string' || typeof jwk.d !== 'string') throw new Error(`${path} holds no private key`);
  const alg = options.alg ?? algForJwk(jwk);
  const kid = options.kid ?? (typeof jwk.kid === 'string' ? jwk.kid : await thumbprintKid(jwk));
  return { jwk, kid, alg };
}

/** A card signer for serveAgent's `signCard`, from a key file (every card shape: see CardSigner). */
export async function signCardWith(path: string, options: { kid?: string; alg?: string; jku?: string } = {}): Promise<CardSigner> {
  const key = await loadSigningKey(path, options);
  return (card) => signAgentCard(card, { key: key.jwk, kid: key.kid, alg: key.alg, ...(options.jku ? { jku: options.jku } : {}) });
}

export const KEY_ALGS = ['ES256', 'ES384', 'ES512', 'EdDSA', 'RS256', 'PS256'] as const;

export interface GeneratedKeys {
  kid: string;
  alg: string;
  /** PEM (PKCS#8) or JWK JSON text of the private key. */
  privateKey: string;
  /** The public JWKS (one key, with kid, alg and use: sig). */
  jwks: Jwks;
}

/** A new signing key pair (kid defaults to the RFC 7638 thumbprint). */
export async function generateSigningKeys(options: { alg?: string; kid?: string; format?: 'pem' | 'jwk' } = {}): Promise<GeneratedKeys> {
  const alg = options.alg ?? 'ES256';
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const jwk = await exportJWK(privateKey);
  const kid = options.kid ?? (await thumbprintKid(jwk));
  const jwks = await jwksOf([{ key: jwk, kid, alg }]);
  const text = options.format === 'jwk' ? `${JSON.stringify({ ...jwk, kid, alg, use: 'sig' }, null, 2)}\n` : await exportPKCS8(privateKey);
  return { kid, alg, privateKey: text, jwks };
}

/**
 * Fetches JWKS through the SSRF guard: no private, loopback or link-local addresses (unless
 * `ssrf.allowPrivate`, for development, which also permits plain http), https otherwise, no
 * redirects, 64 KiB and 10 s at most.
 */
export function guardedJwksFetcher(options: { ssrf?: SsrfOptions; timeoutMs?: number } = {}): JwksFetcher {
  return async (url, init) => {
    const target = vetUrl(url, options.ssrf);
    if (target.protocol !== 'https:' && !options.ssrf?.allowPrivate) throw new Error(`JWKS URL ${url} is not https`);
    const res = await guardedFetch(url, {
      headers: { accept: 'application/jwk-set+json, application/json' },
      maxResponseBytes: MAX_JWKS_BYTES,
      ...(options.ssrf ? { ssrf: options.ssrf } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    if (res.truncated) throw new Error('JWKS larger than 64 KiB');
    return JSON.parse(res.body.toString('utf8')) as unknown;
  };
}

/** A JWKS from a file or a URL (`--jwks URL|FILE`): URLs are left to the fetcher. */
export async function jwksSource(value: string): Promise<Jwks | string> {
  if (/^https?:\/\//i.test(value)) return value;
  const parsed = JSON.parse(await readFile(value, 'utf8')) as unknown;
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`${value} is not a JWKS`);
  // A single public JWK is accepted as a JWKS of one.
  return Array.isArray((parsed as Jwks).keys) ? (parsed as Jwks) : { keys: [parsed as Jwks['keys'][number]] };
}
