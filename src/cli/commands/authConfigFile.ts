/** `a2a serve --auth-config FILE`: the JSON file of verifier settings per security scheme. */
import { dirname, resolve } from 'node:path';
import type { AuthConfig, SchemeVerifierConfig } from '../../auth/authConfig.js';
import { readOptionFile } from '../optionFile.js';
import { readCaFile } from '../tlsOptions.js';
import { UsageError } from '../usage.js';

const AUTH_OPTIONS = new Set(['realm', 'clockSkewSeconds', 'jwksCacheSeconds', 'jwksCooldownSeconds', 'allowPrivateNetworks']);

/**
 * `--auth-config`: per scheme name its verifier settings (flat), or `{"schemes": {...}, ...options}`.
 * An mtls scheme's `ca` is a PEM file (relative to the config file) for the TLS listeners.
 */
export function readAuthConfig(path: string): { config: AuthConfig; clientCas: Buffer[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(readOptionFile('--auth-config', path).toString('utf8'));
  } catch (error) {
    throw new UsageError(`--auth-config ${path}: ${error instanceof Error ? error.message : 'unreadable'}`);
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(raw)) throw new UsageError(`--auth-config ${path}: expected a JSON object of scheme names`);
  const nested = isObject(raw.schemes);
  const entries = nested ? (raw.schemes as Record<string, unknown>) : raw;
  const options: Record<string, unknown> = {};
  if (nested) {
    for (const [key, value] of Object.entries(raw)) {
      if (key === 'schemes') continue;
      if (!AUTH_OPTIONS.has(key)) throw new UsageError(`--auth-config ${path}: unknown option "${key}" (${[...AUTH_OPTIONS].join(', ')})`);
      options[key] = value;
    }
  }
  const schemes: Record<string, SchemeVerifierConfig> = {};
  const clientCas: Buffer[] = [];
  for (const [name, value] of Object.entries(entries)) {
    if (!isObject(value)) throw new UsageError(`--auth-config ${path}: "${name}" must be an object of verifier settings`);
    const { ca, ...settings } = value;
    if (ca !== undefined) {
      if (typeof ca !== 'string') throw new UsageError(`--auth-config ${path}: "${name}.ca" must be a file name`);
      clientCas.push(readCaFile(`--auth-config ${path}: "${name}.ca"`, resolve(dirname(path), ca)));
    }
    schemes[name] = settings as SchemeVerifierConfig;
  }
  return { config: { ...(options as Omit<AuthConfig, 'schemes'>), schemes }, clientCas };
}
