/**
 * Reading a node:http request body within a byte limit: the one reader of the Node host and of
 * `a2a webhook listen`. An oversized body is refused without buffering it (R15).
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError } from '../protocol/errors.js';
import { notUtf8Error } from '../server/http/jsonBody.js';
import { RequestAbortedError } from '../server/http/requestAborted.js';

/** True when the request's Content-Length already says its body is over `limit`. */
export function declaredOver(req: IncomingMessage, limit: number): boolean {
  return Number(req.headers['content-length'] ?? '0') > limit;
}

/**
 * The body's bytes. Rejects with PayloadTooLargeError once the declared or received size passes
 * `limit`, with RequestAbortedError when the connection closes before the body is complete.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // Refused without reading a byte.
  if (declaredOver(req, limit)) return Promise.reject(tooLarge(limit));
  // Gone already (while the handler was busy before reading): no 'end' or 'error' will come.
  if (req.destroyed) return Promise.reject(new RequestAbortedError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: NodeJS.ErrnoException) => {
      cleanup();
      // node:http fails a request whose connection closed early with ECONNRESET "aborted".
      reject(error.code === 'ECONNRESET' ? new RequestAbortedError({ cause: error }) : error);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The body as text: bytes that are not UTF-8 are a ParseError (one validating pass, then the decode). */
export function utf8Text(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw notUtf8Error();
  return bytes.toString('utf8');
}

function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`Request body exceeds ${limit} bytes`);
}
