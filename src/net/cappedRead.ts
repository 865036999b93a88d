/**
 * Reading bodies with a byte cap. Runtime-neutral (WHATWG streams only) and on its own, so the
 * client's card resolver can use it without taking the JSON fetcher (./cappedBody.ts) into
 * what a browser loads first.
 */

/**
 * The bytes of `body`, or `undefined` as soon as more than `maxBytes` arrive: the stream is then
 * cancelled, so a body that never ends (or a huge one) is not read any further. Read errors
 * (the peer went away, the signal fired) are thrown as they are.
 */
export async function readCappedBytes(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

/**
 * The body of `res`, or `undefined` when it is larger than `maxBytes`: said by its Content-Length
 * (nothing is read) or found while reading (see readCappedBytes). The body is cancelled then.
 */
export async function readCappedResponse(res: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    return undefined;
  }
  return readCappedBytes(res.body, maxBytes);
}
