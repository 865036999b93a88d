/**
 * Push credentials at rest (PUSH-11): with a configured key, a config's `token` and
 * `authentication.credentials` are stored as `enc:v1:<iv>:<ciphertext+tag>` (AES-256-GCM, base64url)
 * and opened again only where they are needed (Get/List answers and the delivery itself). Without
 * a key values are stored as given. The key is 32 bytes, given as base64 or hex (`a2a keys`-style
 * `openssl rand -base64 32`), or any passphrase (stretched with scrypt).
 */
import { InternalError } from '../protocol/errors.js';
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import type { StoredPushConfig } from '../server/stores/pushStore.js';

const PREFIX = 'enc:v1:';

export class CredentialBox {
  private readonly key: Buffer | undefined;

  constructor(key?: string | Uint8Array) {
    this.key = key === undefined || key === '' ? undefined : deriveKey(key);
  }

  get encrypts(): boolean {
    return this.key !== undefined;
  }

  seal(config: StoredPushConfig): StoredPushConfig {
    return this.map(config, (v) => this.encrypt(v));
  }

  open(config: StoredPushConfig): StoredPushConfig {
    return this.map(config, (v) => this.decrypt(v));
  }

  private map(config: StoredPushConfig, fn: (value: string) => string): StoredPushConfig {
    if (!this.key && !hasSealed(config)) return config;
    const out: StoredPushConfig = { ...config };
    if (config.token !== undefined) out.token = fn(config.token);
    if (config.authentication?.credentials !== undefined) {
      out.authentication = { ...config.authentication, credentials: fn(config.authentication.credentials) };
    }
    return out;
  }

  private encrypt(value: string): string {
    if (!this.key || value.startsWith(PREFIX)) return value;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${iv.toString('base64url')}:${body.toString('base64url')}`;
  }

  private decrypt(value: string): string {
    if (!value.startsWith(PREFIX)) return value;
    if (!this.key) throw new InternalError('A push credential of this config is encrypted but no push credential key (--push-key) is configured');
    const [ivText = '', bodyText = ''] = value.slice(PREFIX.length).split(':');
    const body = Buffer.from(bodyText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(ivText, 'base64url'));
    decipher.setAuthTag(body.subarray(body.length - 16));
    try {
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      throw new InternalError('A push credential of this config could not be decrypted with the configured push key (--push-key changed?)');
    }
  }
}

function hasSealed(config: StoredPushConfig): boolean {
  return Boolean(config.token?.startsWith(PREFIX) || config.authentication?.credentials?.startsWith(PREFIX));
}

function deriveKey(key: string | Uint8Array): Buffer {
  if (typeof key !== 'string') {
    if (key.length !== 32) throw new Error('the push credential key must be 32 bytes');
    return Buffer.from(key);
  }
  if (/^[0-9a-f]{64}$/i.test(key)) return Buffer.from(key, 'hex');
  const b64 = Buffer.from(key, 'base64');
  if (b64.length === 32 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(key)) return b64;
  return scryptSync(key, 'a2a-kit push credentials', 32);
}
