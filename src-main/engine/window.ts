/**
 * How much work the engine keeps in flight, adapted to the measured round trip (issue 19).
 *
 * The scheduler's limits (blocks, small files, requests) are the window's starting point,
 * tuned for loopback: on a link with a long round trip each request spends most of its time
 * waiting, and a fixed count of requests in flight leaves the link idle. The window grows a
 * kind's count (chunk requests of blocks, or form uploads of small files) by a factor while
 * it pays: it measures each reply's round trip and the replies per second, and
 * - it probes only where the round trip shows a latency to hide: the least round trip seen
 *   lately is at least `latencyFloorMs` (loopback answers a 4 MiB chunk faster, so a local
 *   service keeps the configured counts and the resume bound that goes with them);
 * - it probes only while the window is full (work waits for it), one step at a time, each
 *   step held for a measuring period of at least `periodMs` and 4 round trips;
 * - it starts fast: until a step fails, each step doubles (`startStep`) and is kept on one
 *   period whose reply rate rose by `gainToKeep` (20 %), so a batch of files that lasts a
 *   second or two gets its wider window within it (a camera card over a hotel link);
 * - after that, a step (×1.5) is kept when the rate rose by `gainToKeep` over the step before
 *   in two periods in a row, and then the next step is tried;
 * - a step that did not pay is taken back, and the window stays there for `holdPeriods`
 *   periods before it probes again (the link's capacity may have changed);
 * - it never goes above `maxFactor` × the configured counts.
 * Memory is not the window's to bound: the bytes of chunks held in buffers stay under the
 * scheduler's `maxBytesInFlight`, which a chunk gives back at its reply (block-upload.ts).
 * So a wider block count puts more chunks in flight only where they are smaller than the
 * bytes bound allows at 4 MiB each; small files' form uploads are counted the same way.
 *
 * Pure: time comes in with each observation.
 */

export type RequestKind = 'block' | 'form';

export interface WindowOptions {
  /** Largest factor over the configured counts. Default 4. */
  maxFactor?: number;
  /** Below this least round trip nothing is probed (loopback). Default 10 ms. */
  latencyFloorMs?: number;
  /** Shortest measuring period of one step (else 4 round trips). Default 250 ms. */
  periodMs?: number;
  /** Rate rise that keeps a step. Default 0.2 (20 %: a ×1.5 step on a link that only waits gives up to +50 %; less is noise on a shared machine). */
  gainToKeep?: number;
  /** Periods a window stays put after a step that did not pay. Default 10. */
  holdPeriods?: number;
  /** One step's factor. Default 1.5. */
  step?: number;
  /** A step's factor until the first step that did not pay (start, or after a pause). Default 2. */
  startStep?: number;
  /**
   * Whether the block count follows too (default false: measured so far, a wider block window
   * did not pay against this emulator and pushed the uploader's RSS past 150 MiB; see
   * engine/README.md). Small files (form uploads) always do.
   */
  blocks?: boolean;
}

const DEFAULTS: Required<WindowOptions> = {
  maxFactor: 4,
  latencyFloorMs: 10,
  periodMs: 250,
  gainToKeep: 0.2,
  holdPeriods: 10,
  step: 1.5,
  startStep: 2,
  blocks: false,
};

/** What the window knows of one kind of request; also what a test or the bench may read. */
export interface KindEstimate {
  factor: number;
  /** Least round trip of the last periods, ms (Infinity before any reply). */
  minRttMs: number;
  /** Replies per second in the last finished period (0 before one). */
  replyRate: number;
  /** Highest factor reached so far. */
  peakFactor: number;
}

class KindWindow {
  factor = 1;
  peakFactor = 1;
  minRttMs = Infinity;
  private prevMinRttMs = Infinity;
  replyRate = 0;
  /** The rate of the step below the current one, to compare with; undefined: no step taken yet. */
  private rateBefore: number | undefined;
  private periodStart: number | undefined;
  private replies = 0;
  private fullReplies = 0;
  private periodMinRtt = Infinity;
  private hold = 0;
  /** Periods measured so far: the first (connections opening, buffers filling) is no base to probe from. */
  private periods = 0;
  /** Periods of the current step that paid so far. */
  private confirmed = 0;
  /** The factor before the current step (what a step that did not pay goes back to). */
  private factorBefore = 1;
  /** No step has failed yet (since the start or the last pause): steps are `startStep` and kept on one period. */
  private starting = true;
  private lastReplyMs: number | undefined;
  /** When the factor last changed: replies to requests sent before it belong to the old window and are not counted. */
  private changedAtMs = -Infinity;

  constructor(private readonly o: Required<WindowOptions>) {}

  /** One reply; `full`: the window was full when it came (work was waiting). True when the factor changed. */
  observe(rttMs: number, nowMs: number, full: boolean): boolean {
    const before = this.factor;
    // After a pause (nothing to upload) the measure starts over, warm-up included; a step
    // still being measured when the replies stopped was never shown to pay, and is taken back.
    if (this.lastReplyMs !== undefined && nowMs - this.lastReplyMs > 2 * this.periodLength()) {
      if (this.rateBefore !== undefined) {
        this.factor = this.factorBefore;
        this.changedAtMs = nowMs;
      }
      this.periodStart = undefined;
      this.periods = 0;
      this.rateBefore = undefined;
      this.confirmed = 0;
      this.replies = 0;
      this.fullReplies = 0;
      this.starting = true;
    }
    this.lastReplyMs = nowMs;
    if (nowMs - rttMs < this.changedAtMs) return this.factor !== before;
    if (this.periodStart === undefined) this.periodStart = nowMs - rttMs;
    this.replies++;
    if (full) this.fullReplies++;
    if (rttMs < this.periodMinRtt) this.periodMinRtt = rttMs;
    // The least round trip of this period and the one before (a window that forgets slowly).
    this.minRttMs = Math.min(this.prevMinRttMs, this.periodMinRtt);
    const span = nowMs - this.periodStart;
    if (span >= this.periodLength() && this.replies >= 8) this.endPeriod(span, nowMs);
    return this.factor !== before;
  }

  /** A measuring period: at least `periodMs` and 4 round trips. */
  private periodLength(): number {
    const rtt = Number.isFinite(this.minRttMs) ? this.minRttMs : 0;
    return Math.max(this.o.periodMs, 4 * rtt);
  }

  private endPeriod(spanMs: number, nowMs: number): void {
    const rate = (this.replies / spanMs) * 1000;
    const wasFull = this.fullReplies >= this.replies / 2;
    const minRtt = this.periodMinRtt;
    this.replyRate = rate;
    this.prevMinRttMs = minRtt;
    this.periodStart = undefined;
    this.replies = 0;
    this.fullReplies = 0;
    this.periodMinRtt = Infinity;
    // The first period (connections opening) is measured, not compared.
    if (++this.periods === 1) return;
    const before = this.factor;
    if (this.hold > 0) {
      this.hold--;
    } else if (this.rateBefore !== undefined && rate < this.rateBefore * (1 + this.o.gainToKeep)) {
      // The last step did not pay: back one step, and stay there a while; the fast start is over.
      this.factor = this.factorBefore;
      this.rateBefore = undefined;
      this.confirmed = 0;
      this.hold = this.o.holdPeriods;
      this.starting = false;
    } else if (this.rateBefore !== undefined && !this.starting && ++this.confirmed < 2) {
      // After the start, a step is kept on two periods in a row that paid (one can be the machine's noise).
    } else if (wasFull && minRtt >= this.o.latencyFloorMs && this.factor < this.o.maxFactor) {
      this.rateBefore = rate;
      this.confirmed = 0;
      this.factorBefore = this.factor;
      this.factor = Math.min(this.o.maxFactor, this.factor * (this.starting ? this.o.startStep : this.o.step));
    } else {
      this.rateBefore = undefined;
    }
    if (this.factor > this.peakFactor) this.peakFactor = this.factor;
    if (this.factor !== before) this.changedAtMs = nowMs;
  }
}

export class InFlightWindow {
  private readonly o: Required<WindowOptions>;
  private readonly kinds: Record<RequestKind, KindWindow>;

  constructor(opts: WindowOptions = {}) {
    this.o = { ...DEFAULTS, ...opts };
    this.kinds = { block: new KindWindow(this.o), form: new KindWindow(this.o) };
  }

  /** The largest factor the window may reach. */
  get maxFactor(): number {
    return this.o.maxFactor;
  }

  /** The factor over the configured counts for this kind of request (1 … maxFactor). */
  factor(kind: RequestKind): number {
    return this.kinds[kind].factor;
  }

  /**
   * A reply of this kind came `rttMs` after its request was sent; `full`: requests of this
   * kind were waiting for the window. Returns true when the kind's factor changed.
   */
  observe(kind: RequestKind, rttMs: number, nowMs: number, full: boolean): boolean {
    if (kind === 'block' && !this.o.blocks) return false;
    return this.kinds[kind].observe(rttMs, nowMs, full);
  }

  estimate(kind: RequestKind): KindEstimate {
    const k = this.kinds[kind];
    return { factor: k.factor, minRttMs: k.minRttMs, replyRate: k.replyRate, peakFactor: k.peakFactor };
  }
}
