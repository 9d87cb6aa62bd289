/**
 * Global limits on work in flight, shared by every transfer of an engine: files uploading
 * at once, blocks uploading at once, and bytes of chunks in flight. Waiters are served by
 * priority (higher first), then in arrival order. Every acquire resolves with a release
 * function the caller must call exactly once; an aborted wait rejects with the signal's
 * reason and holds nothing.
 */

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
  /** Transfers uploading in blocks (files above the form-upload threshold) at the same time. */
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
  // 512 MiB) and keeps 8 × 4 MiB read buffers, well under the 150 MiB RSS budget.
  maxBlocks: 8,
  maxBlocksPerFile: 8,
  maxBytesInFlight: 64 * 1024 * 1024,
};

export class Scheduler {
  readonly blocks: PrioritySemaphore;
  readonly bytes: PrioritySemaphore;
  readonly requests: PrioritySemaphore;
  limits: SchedulerLimits;

  constructor(limits: Partial<SchedulerLimits> = {}) {
    this.limits = checkLimits({ ...DEFAULT_LIMITS, ...limits });
    this.blocks = new PrioritySemaphore(this.limits.maxBlocks);
    this.bytes = new PrioritySemaphore(this.limits.maxBytesInFlight);
    this.requests = new PrioritySemaphore(this.limits.maxRequests);
  }

  /**
   * Changes limits while uploads run (settings changed). Work already admitted keeps going
   * (a lower limit admits nothing new until the count is below it); a higher one admits
   * waiters at once. `maxFiles` and `maxSmallFiles` are read by the engine's next admission,
   * `maxBlocksPerFile` by each file's next round of blocks. Throws RangeError for a bad value
   * and then changes nothing.
   */
  setLimits(patch: Partial<SchedulerLimits>): void {
    this.limits = checkLimits({ ...this.limits, ...patch });
    this.blocks.setCapacity(this.limits.maxBlocks);
    this.bytes.setCapacity(this.limits.maxBytesInFlight);
    this.requests.setCapacity(this.limits.maxRequests);
  }
}

function checkLimits(limits: SchedulerLimits): SchedulerLimits {
  for (const [k, v] of Object.entries(limits)) {
    if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`${k} must be a whole number of 1 or more, not ${v}`);
  }
  return limits;
}
