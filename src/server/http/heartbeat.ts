/**
 * SSE heartbeats without a timer per stream (R9): one interval per heartbeat period ticks for
 * every open stream of that period, and wakes those idle for a period (7/8 to 1 of it, never
 * longer). A stream records the tick count when it writes (no clock read per event).
 */

/** A stream the clock keeps alive. */
export interface Heartbeating {
  /** The clock's `ticks` when the stream last wrote. */
  lastActive: number;
  /** Idle for a period: write a heartbeat. */
  beat(): void;
}

/**
 * Ticks per period. A write lands between two ticks and counts from the earlier one, so a beat
 * TICKS_PER_PERIOD ticks after it comes after 7/8 to 1 period of silence: never later than the
 * period (R7: a comment at least every heartbeatMs).
 */
const TICKS_PER_PERIOD = 8;

export class HeartbeatClock {
  ticks = 0;
  private readonly members = new Set<Heartbeating>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly periodMs: number) {}

  add(member: Heartbeating): void {
    member.lastActive = this.ticks;
    this.members.add(member);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), Math.max(1, this.periodMs / TICKS_PER_PERIOD));
      // Heartbeats alone never keep a process alive (the streams' connections do). Optional: not every runtime has unref.
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  delete(member: Heartbeating): void {
    this.members.delete(member);
    if (this.members.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Streams on this clock (its interval runs while there are any). */
  get size(): number {
    return this.members.size;
  }

  /** One tick: beats for members silent for (at most) a period (the interval calls it). */
  tick(): void {
    const now = ++this.ticks;
    for (const member of this.members) {
      if (now - member.lastActive < TICKS_PER_PERIOD) continue;
      // The next heartbeat comes exactly one period later if nothing else is written.
      member.lastActive = now;
      member.beat();
    }
  }
}

const clocks = new Map<number, HeartbeatClock>();

/** The shared clock of a heartbeat period. */
export function heartbeatClock(periodMs: number): HeartbeatClock {
  let clock = clocks.get(periodMs);
  if (!clock) {
    clock = new HeartbeatClock(periodMs);
    clocks.set(periodMs, clock);
  }
  return clock;
}
