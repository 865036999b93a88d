/**
 * Service parameters (SVC rules): the protocol version (A2A-Version, VER rules) and the
 * activated extensions (A2A-Extensions, EXT rules). Every binding reads them through these
 * functions so that negotiation is identical everywhere (R20).
 */
import type { AgentCard, AgentInterface } from './types.js';
import { ExtensionSupportRequiredError, VersionNotSupportedError } from './errors.js';

export const VERSION_HEADER = 'A2A-Version';
export const EXTENSIONS_HEADER = 'A2A-Extensions';
/**
 * The A2A 0.3 name of the extensions service parameter: HTTP header and gRPC metadata key of
 * the official 0.3 SDKs (JS `HTTP_EXTENSION_HEADER`, Python likewise).
 */
export const EXTENSIONS_HEADER_V03 = 'X-A2A-Extensions';
/** The version this library speaks natively. */
export const PROTOCOL_VERSION = '1.0';
/** A2A 0.3, which the built-in JSONRPC and HTTP+JSON client transports speak too (loaded on first use). */
export const V03_VERSION = '0.3';

/** VER-01: Major.Minor, patch ignored; undefined when unparsable. */
export function parseVersion(value: string): string | undefined {
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(value.trim());
  return m ? `${Number(m[1])}.${Number(m[2])}` : undefined;
}

/** Major.Minor of an interface's protocolVersion (`1.0.2` → `1.0`). */
export function versionOf(agentInterface: AgentInterface): string {
  return parseVersion(String(agentInterface.protocolVersion ?? '')) ?? '';
}

/**
 * Picks the version of a request: header first, then query parameter (B5); empty or absent
 * means 0.3 (VER-05). Throws VersionNotSupportedError (VER-06, B2, B3) when not served.
 */
export function negotiateVersion(
  header: string | null | undefined,
  query: string | null | undefined,
  supported: readonly string[],
): string {
  const raw = (header ?? '').trim() || (query ?? '').trim();
  const requested = raw === '' ? '0.3' : parseRequestedVersion(raw);
  if (requested !== undefined && supported.includes(requested)) return requested;
  throw new VersionNotSupportedError(
    `Protocol version ${raw === '' ? '0.3 (no A2A-Version given)' : JSON.stringify(raw)} is not supported; supported: ${supported.join(', ')}`,
    { metadata: { requestedVersion: raw === '' ? '0.3' : raw.slice(0, 32), supportedVersions: supported.join(',') } },
  );
}

/**
 * The Major.Minor an A2A-Version value asks for, or undefined. SVC-03: a repeated header arrives
 * comma-joined ("1.0, 1.0"); the same version repeated is that version, while different ones
 * are not a choice the server can make for the client.
 */
export function parseRequestedVersion(raw: string): string | undefined {
  if (!raw.includes(',')) return parseVersion(raw);
  let version: string | undefined;
  for (const part of raw.split(',')) {
    const v = parseVersion(part.trim());
    if (v === undefined || (version !== undefined && v !== version)) return undefined;
    version = v;
  }
  return version;
}

/** R7: a Last-Event-ID (header or gRPC metadata) as the seq to resume after; anything but 1–15 digits is ignored. */
export function parseLastEventId(value: string | null | undefined): number | undefined {
  const id = value?.trim();
  return id !== undefined && /^\d{1,15}$/.test(id) ? Number(id) : undefined;
}

/** Most distinct extension URIs read from one request; later ones are ignored (EXT-08: untrusted input). */
export const MAX_REQUESTED_EXTENSIONS = 64;

/**
 * E10: comma-separated URIs, trimmed, empties and repeats ignored, at most
 * MAX_REQUESTED_EXTENSIONS of them; repeated headers arrive comma-joined. Linear in the header's
 * length (gRPC metadata has no 16 KB header cap).
 */
export function parseExtensions(header: string | null | undefined): string[] {
  if (!header) return [];
  const out = new Set<string>();
  for (const part of header.split(',')) {
    const uri = part.trim();
    if (uri) out.add(uri);
    if (out.size === MAX_REQUESTED_EXTENSIONS) break;
  }
  return [...out];
}

/**
 * The extensions a call of `version` asks for; `read` gives a header or metadata value by its
 * lowercase name. 1.x: A2A-Extensions only. 0.3: X-A2A-Extensions (what 0.3 clients send) and
 * A2A-Extensions too (clients that send the 1.0 name to 0.3 agents), in that order.
 */
export function requestedExtensions(version: string, read: (name: string) => string | null | undefined): string[] {
  const v10 = read('a2a-extensions');
  if (version !== '0.3') return parseExtensions(v10);
  const v03 = read('x-a2a-extensions');
  return parseExtensions(v03 && v10 ? `${v03},${v10}` : v03 || v10);
}

/**
 * EXT-05, client side: the extensions a response says the agent activated, from its
 * A2A-Extensions header or metadata (X-A2A-Extensions from an A2A 0.3 agent); `read` gives a
 * header or metadata value by its lowercase name.
 */
export function echoedExtensions(read: (name: string) => string | null | undefined): string[] {
  return requestedExtensions('0.3', read);
}

/** The header (or metadata key, lowercased) that echoes the activated extensions of a call of `version` (EXT-05). */
export function extensionsHeaderFor(version: string): string {
  return version === '0.3' ? EXTENSIONS_HEADER_V03 : EXTENSIONS_HEADER;
}

/** CAP-04 / EXT-04: every extension the card marks required must be activated. */
export function checkRequiredExtensions(card: AgentCard, requested: readonly string[]): void {
  for (const ext of card.capabilities.extensions ?? []) {
    if (ext.required && ext.uri && !requested.includes(ext.uri)) {
      throw new ExtensionSupportRequiredError(`Extension ${ext.uri} is required by this agent; activate it with the A2A-Extensions header`, {
        metadata: { extension: ext.uri },
      });
    }
  }
}

/** EXT-05: the extensions this agent supports among those requested, for the response header. */
export function activatedExtensions(card: AgentCard, requested: readonly string[]): string[] {
  const supported = new Set((card.capabilities.extensions ?? []).map((e) => e.uri));
  return requested.filter((uri) => supported.has(uri));
}
