/**
 * Timers of the trackers: at most one pending poll per row id, each with an AbortSignal
 * that dispose() fires. Owns every timer it creates; after dispose() nothing runs.
 */
export class PollTimers {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly epochs = new Map<number, number>();

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get disposed(): boolean {
    return this.abort.signal.aborted;
  }

  /** (Re)schedules the poll of `id` in `delayMs`; replaces a pending one. */
  schedule(id: number, delayMs: number, run: (signal: AbortSignal) => Promise<void>): void {
    if (this.disposed) return;
    this.cancel(id);
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        this.track(run(this.abort.signal));
      },
      Math.max(0, delayMs),
    );
    this.timers.set(id, timer);
  }

  cancel(id: number): void {
    const t = this.timers.get(id);
    if (t !== undefined) clearTimeout(t);
    this.timers.delete(id);
  }

  has(id: number): boolean {
    return this.timers.has(id);
  }

  /**
   * Marks that news fresher than any poll in flight arrived for `id` (a notification): a
   * poll that started before compares epoch() and drops its older answer.
   */
  bump(id: number): void {
    this.epochs.set(id, this.epoch(id) + 1);
  }

  epoch(id: number): number {
    return this.epochs.get(id) ?? 0;
  }

  /** Runs work now, counted so that dispose() waits for it. */
  track(p: Promise<void>): void {
    const guarded = p.catch(() => undefined);
    this.running.add(guarded);
    void guarded.finally(() => this.running.delete(guarded));
  }

  /** Clears every timer, aborts calls in flight and waits for them to settle. */
  async dispose(): Promise<void> {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.abort.abort();
    await Promise.all([...this.running]);
  }
}
