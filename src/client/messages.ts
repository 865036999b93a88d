/**
 * Building user messages from plain values: text, JSON data, files (bytes or URL). Each
 * message gets a fresh messageId (crypto.randomUUID) unless the caller fixes one.
 */
import type { JsonObject, JsonValue, Message, Part } from '../protocol/types.js';

/** A file as inline bytes (Uint8Array, or a base64 string) or as a URL. */
export type FileInput =
  | { bytes: Uint8Array | string; name?: string; mediaType?: string }
  | { url: string; name?: string; mediaType?: string };

export interface MessageInput {
  text?: string;
  /** Any JSON value, sent as a data part. */
  data?: JsonValue;
  file?: FileInput | FileInput[];
  /** Further parts, sent after the ones above. */
  parts?: Part[];
  taskId?: string;
  contextId?: string;
  /** A caller-chosen id (needed to retry sendMessage safely); a fresh UUID when absent. */
  messageId?: string;
  metadata?: JsonObject;
  referenceTaskIds?: string[];
  extensions?: string[];
}

/** Messages whose messageId the library generated (so the caller cannot reconcile a retry). */
const generated = new WeakSet<Message>();

export function hasGeneratedId(message: Message): boolean {
  return generated.has(message);
}

/** Standard base64 of bytes, without Buffer (runs in browsers, Deno, Bun, Workers). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function textPart(text: string): Part {
  return { text };
}

export function dataPart(data: JsonValue, mediaType?: string): Part {
  return mediaType ? { data, mediaType } : { data };
}

export function filePart(file: FileInput): Part {
  const part: Part =
    'url' in file ? { url: file.url } : { raw: typeof file.bytes === 'string' ? file.bytes : bytesToBase64(file.bytes) };
  if (file.name) part.filename = file.name;
  if (file.mediaType) part.mediaType = file.mediaType;
  return part;
}

/** A ROLE_USER message from text and/or data and files. */
export function createMessage(input: MessageInput | string): Message {
  const m: MessageInput = typeof input === 'string' ? { text: input } : input;
  const parts: Part[] = [];
  if (m.text !== undefined) parts.push(textPart(m.text));
  if ('data' in m && m.data !== undefined) parts.push(dataPart(m.data));
  for (const file of m.file === undefined ? [] : Array.isArray(m.file) ? m.file : [m.file]) parts.push(filePart(file));
  if (m.parts) parts.push(...m.parts);
  const message: Message = { messageId: m.messageId ?? crypto.randomUUID(), role: 'ROLE_USER', parts };
  if (m.taskId) message.taskId = m.taskId;
  if (m.contextId) message.contextId = m.contextId;
  if (m.metadata) message.metadata = m.metadata;
  if (m.referenceTaskIds) message.referenceTaskIds = m.referenceTaskIds;
  if (m.extensions) message.extensions = m.extensions;
  if (m.messageId === undefined) generated.add(message);
  return message;
}
