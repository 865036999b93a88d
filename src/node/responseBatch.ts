/**
 * Unary responses finished during one turn of the event loop leave together at its end.
 *
 * Under load, node:http reads many requests per turn and each answer used to be written as soon
 * as it was ready: one write per answer, interleaved with the work on the next request, so a
 * client that had gone to sleep waiting was woken once per answer. Waking a sleeping peer is the
 * expensive part of a loopback or same-host write (it costs the writer an inter-processor
 * interrupt, a VM exit on virtual machines). Written back to back at the end of the turn, the
 * answers wake their readers once per burst instead. An idle server answers in the same turn as
 * before (one setImmediate later); a busy one holds an answer for at most `maxBatch` requests.
 */
import type { ServerResponse } from 'node:http';

/** One finished answer: its response object, status line, flat header list and body. */
export interface Answer {
  res: ServerResponse;
  status: number;
  headers: string[];
  body: string | undefined;
}

export const INTERNAL_BODY = '{"error":{"code":500,"status":"INTERNAL","message":"Internal error"}}';
const INTERNAL_HEADERS = { 'content-type': 'application/json' };

export class ResponseBatch {
  private pending: Answer[] = [];
  private scheduled = false;
  private readonly flushNow = () => {
    this.scheduled = false;
    this.flush();
  };

  /** `onError` hears of answers that could not be written (they are replaced by a 500 or the connection is cut). */
  constructor(
    private readonly onError: ((error: unknown) => void) | undefined,
    private readonly maxBatch = 32,
  ) {}

  /** Writes this answer at the end of the current turn (or now, when the batch is full). */
  add(answer: Answer): void {
    this.pending.push(answer);
    if (this.pending.length >= this.maxBatch) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushNow);
    }
  }

  flush(): void {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    for (const answer of batch) this.write(answer);
  }

  private write({ res, status, headers, body }: Answer): void {
    // A client gone in the meantime has nothing left to receive.
    if (res.destroyed) return;
    try {
      res.writeHead(status, headers);
      res.end(body);
    } catch (error) {
      this.onError?.(error);
      if (res.headersSent) res.destroy();
      else res.writeHead(500, INTERNAL_HEADERS).end(INTERNAL_BODY);
    }
  }
}
