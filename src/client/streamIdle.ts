/**
 * R24 over SSE: an event stream whose server froze (SIGSTOP) or sits behind a partition gives no
 * FIN or RST, and TCP keepalive cannot see a frozen process, so a read would wait forever. The
 * only liveness signal is the server's heartbeat comments (ours: `: keep-alive` every
 * heartbeatMs of silence). Once a comment arrived, the server is known to heartbeat, and a
 * silence longer than max(streamIdleMs, 3 × the longest wait for a chunk so far) ends the read
 * as a dropped connection does: NETWORK, which createClient resumes. A stream without comments
 * (a server that sends none) waits as long as it takes. Timers only: the client runs in browsers.
 */
import { A2AClientError } from './errors.js';

/** Default ClientOptions.streamIdleMs: 4 of our default 15 s heartbeat periods. */
export const DEFAULT_STREAM_IDLE_MS = 60_000;

export class StreamIdleWatch {
  private longestWait = 0;

  /** `floorMs`: ClientOptions.streamIdleMs (0 turns the watch off). */
  constructor(private readonly floorMs: number) {}

  /** The reader's next chunk; NETWORK once the silence outlasts the limit, if `heard` a comment (the server heartbeats). */
  async read<T>(reader: ReadableStreamDefaultReader<T>, heard: boolean): Promise<ReadableStreamReadResult<T>> {
    const start = Date.now();
    // Not watching (yet): no timer and no race for the chunk.
    if (!heard || this.floorMs <= 0) {
      const result = await reader.read();
      this.longestWait = Math.max(this.longestWait, Date.now() - start);
      return result;
    }
    const limit = Math.max(this.floorMs, 3 * this.longestWait);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silence = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new A2AClientError('NETWORK', `The event stream was silent for ${limit} ms (streamIdleMs)`)), limit);
    });
    try {
      return await Promise.race([reader.read(), silence]);
    } finally {
      clearTimeout(timer);
      this.longestWait = Math.max(this.longestWait, Date.now() - start);
    }
  }
}
