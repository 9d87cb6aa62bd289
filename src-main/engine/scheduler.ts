/**
 * Global limits on work in flight, shared by every transfer of an engine: files uploading
 * at once, blocks uploading at once, and bytes of chunks in flight. Waiters are served by
 * priority (higher first), then in arrival order. Every acquire resolves with a release
 * function the caller must call exactly once; an aborted wait rejects with the signal's
 * reason and holds nothing.
 */

import { InFlightWindow, type RequestKind, type WindowOptions } from './window';

interface Waiter {
  amount: number;
  priority: number;
  seq: number;
  grant: () => void;
}

export class PrioritySemaphore {
  private used = 0;
  private seq = 0;
  private readonly waiters: Waiter[] = [];

  constructor(private capacity: number) {}

  get inUse(): number {
    return this.used;
  }

  get limit(): number {
    return this.capacity;
  }

  setCapacity(capacity: number): void {
    this.capacity = capacity;
    this.pump();
  }

  /** Takes `amount` units (an amount above capacity is taken alone, when nothing else is held). */
  acquire(amount = 1, priority = 0, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.used -= amount;
        this.pump();
      };
      const w: Waiter = {
        amount,
        priority,
        seq: this.seq++,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason);
        this.pump();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
      this.waiters.sort((a, b) => b.priority - a.priority || a.seq - b.seq);
      this.pump();
    });
  }

  private pump(): void {
    for (;;) {
      const w = this.waiters[0];
      if (!w) return;
      const fits = this.used + w.amount <= this.capacity || this.used === 0;
      if (!fits) return; // strict order: a big waiter at the head is not overtaken
      this.waiters.shift();
      this.used += w.amount;
      w.grant();
    }
  }
}

export interface SchedulerLimits {
  /** Transfers sending blocks (files above the form-upload threshold) at the same time; one completing (mkfile) does not count. */
  maxFiles: number;
  /**
   * Transfers uploading at the same time when they are small (form upload, one request
   * each): many small files in flight hide each request's round trip; memory stays bounded
   * by maxBytesInFlight, which each form upload holds for its file's size.
   */
  maxSmallFiles: number;
  /** Requests in flight over all transfers: each block uploading and each form upload holds one. */
  maxRequests: number;
  /** Blocks uploading at the same time, over all transfers. */
  maxBlocks: number;
  /** Blocks of one file uploading at the same time. */
  maxBlocksPerFile: number;
  /** Bytes of chunk bodies in flight, over all transfers. */
  maxBytesInFlight: number;
}

export const DEFAULT_LIMITS: SchedulerLimits = {
  maxFiles: 4,
  maxSmallFiles: 32,
  maxRequests: 32,
  // 8 blocks in flight measured best on loopback (2 cores; 4 → 16: 4 s, 3.5 s, 4.4 s for
  // 512 MiB); on a link with a round trip the window (window.ts) grows them.
  maxBlocks: 8,
  maxBlocksPerFile: 8,
  // The memory bound: bytes read into buffers for requests not yet answered (a chunk gives
  // its bytes back at its reply, block-upload.ts; a form upload at its end). 8 × 4 MiB,
  // as many as 8 blocks held before the window, so RSS stays where it was (< 150 MiB).
  maxBytesInFlight: 32 * 1024 * 1024,
};

/**
 * The scheduler's semaphores, and the window (window.ts) that scales the counts of requests
 * in flight to the measured round trip. The configured limits are the window's starting
 * point; with the window (the default) blocks, blocks per file, small files and requests
 * may grow to `maxFactor` times them while that raises the reply rate on a link with a
 * round trip to hide. Bytes in buffers (memory) never grow.
 */
export class Scheduler {
  readonly blocks: PrioritySemaphore;
  readonly bytes: PrioritySemaphore;
  readonly requests: PrioritySemaphore;
  limits: SchedulerLimits;
  /** Undefined when the counts are fixed (`adaptive: false`). */
  readonly window: InFlightWindow | undefined;
  private readonly gates = new Set<PrioritySemaphore>();
  private readonly listeners = new Set<() => void>();
  private readonly inFlight: Record<RequestKind, number> = { block: 0, form: 0 };
  /**
   * Files the engine runs now, large and small (engine.ts gives its count). The small files'
   * window is full when these reach `filesAtOnce`: the engine admits no more then, so work
   * waits for the window. (Form requests in flight alone stay under it: each admitted file also
   * spends time reading, hashing and recording before and after its request.)
   */
  runningFiles: () => number = () => 0;

  constructor(limits: Partial<SchedulerLimits> = {}, opts: { adaptive?: boolean | WindowOptions } = {}) {
    this.limits = checkLimits({ ...DEFAULT_LIMITS, ...limits });
    const adaptive = opts.adaptive ?? true;
    this.window = adaptive === false ? undefined : new InFlightWindow(adaptive === true ? {} : adaptive);
    this.blocks = new PrioritySemaphore(this.limits.maxBlocks);
    this.bytes = new PrioritySemaphore(this.limits.maxBytesInFlight);
    this.requests = new PrioritySemaphore(this.limits.maxRequests);
    this.apply();
  }

  /**
   * Changes limits while uploads run (settings changed). Work already admitted keeps going
   * (a lower limit admits nothing new until the count is below it); a higher one admits
   * waiters at once. `maxFiles` and `maxSmallFiles` are read by the engine's next admission,
   * `maxBlocksPerFile` by each file's gate at once. Throws RangeError for a bad value
   * and then changes nothing.
   */
  setLimits(patch: Partial<SchedulerLimits>): void {
    this.limits = checkLimits({ ...this.limits, ...patch });
    this.apply();
  }

  /** Small files uploading at once now: `maxSmallFiles` × the window's factor for form uploads. */
  get smallFiles(): number {
    return scaled(this.limits.maxSmallFiles, this.factor('form'));
  }

  /** Files the engine runs at once now, large and small: the larger of `maxFiles` and `smallFiles`. */
  get filesAtOnce(): number {
    return Math.max(this.limits.maxFiles, this.smallFiles);
  }

  /** Blocks of one file uploading at once now: `maxBlocksPerFile` × the window's factor for blocks. */
  get blocksPerFile(): number {
    return scaled(this.limits.maxBlocksPerFile, this.factor('block'));
  }

  /** The most blocks of one file the window may ever allow (how many workers a file starts). */
  get blocksPerFileCeiling(): number {
    return scaled(this.limits.maxBlocksPerFile, this.window ? this.window.maxFactor : 1);
  }

  /**
   * A gate for the blocks of one file (capacity `blocksPerFile`, following the window).
   * Dispose it when the file's round ends.
   */
  fileGate(): { gate: PrioritySemaphore; dispose(): void } {
    const gate = new PrioritySemaphore(this.blocksPerFile);
    this.gates.add(gate);
    return { gate, dispose: () => this.gates.delete(gate) };
  }

  /**
   * A request of this kind is sent (a block's chunk, or a small file's form upload): call
   * the returned function once with whether its reply came (true) or it failed (false). Each
   * reply's round trip feeds the window.
   */
  sending(kind: RequestKind, now: () => number = () => performance.now()): (replied: boolean) => void {
    const t0 = now();
    this.inFlight[kind]++;
    let done = false;
    return (replied) => {
      if (done) return;
      done = true;
      const full =
        kind === 'form' ? this.runningFiles() >= this.filesAtOnce : this.inFlight[kind] >= this.blockCapacity();
      this.inFlight[kind]--;
      if (!replied || !this.window) return;
      const t = now();
      if (this.window.observe(kind, t - t0, t, full)) {
        this.apply();
        for (const l of this.listeners) l();
      }
    };
  }

  /** Called after the window changed the counts (the engine admits more small files then). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private factor(kind: RequestKind): number {
    return this.window?.factor(kind) ?? 1;
  }

  private blockCapacity(): number {
    return scaled(Math.min(this.limits.maxBlocks, this.limits.maxBlocksPerFile), this.factor('block'));
  }

  private apply(): void {
    const fb = this.factor('block');
    const ff = this.factor('form');
    this.blocks.setCapacity(scaled(this.limits.maxBlocks, fb));
    this.bytes.setCapacity(this.limits.maxBytesInFlight);
    this.requests.setCapacity(scaled(this.limits.maxRequests, Math.max(fb, ff)));
    const perFile = this.blocksPerFile;
    for (const g of this.gates) g.setCapacity(perFile);
  }
}

function scaled(count: number, factor: number): number {
  return Math.max(1, Math.round(count * factor));
}

function checkLimits(limits: SchedulerLimits): SchedulerLimits {
  for (const [k, v] of Object.entries(limits)) {
    if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`${k} must be a whole number of 1 or more, not ${v}`);
  }
  return limits;
}
