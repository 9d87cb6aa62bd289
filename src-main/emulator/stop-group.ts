import type { Logger } from '../base/logger';

/**
 * Background work of one service (Fmgr tasks, VCA jobs), stopped together on close. Each
 * unit of work gets an AbortSignal of its own: one shared signal would collect an 'abort'
 * listener per waiting unit and warn (MaxListenersExceededWarning) once more than ten run
 * at the same time.
 */
export class StopGroup {
  private readonly controllers = new Set<AbortController>();
  private readonly running = new Set<Promise<void>>();
  private stoppedFlag = false;

  constructor(private readonly logger: Logger) {}

  /** True once stop() was called. */
  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** Runs `fn` with a signal of its own, aborted by stop() (at once when already stopped). */
  run<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    if (this.stoppedFlag) controller.abort();
    this.controllers.add(controller);
    return fn(controller.signal).finally(() => this.controllers.delete(controller));
  }

  /**
   * Runs `fn` in the background (see `run`). A failure (disk full, database closed) must not
   * crash the emulator: it is logged as `what` stopped, unless the group was stopped.
   */
  spawn(what: string, fn: (signal: AbortSignal) => Promise<void>): void {
    const p = this.run(fn).catch((e: unknown) => {
      if (!this.stoppedFlag) this.logger.error(`${what} stopped: ${(e as Error).message}`);
    });
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
  }

  /** Resolves when every unit spawned so far (and any they spawned) has ended. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** Aborts the signal of every unit still running and of every unit started later. */
  stop(): void {
    this.stoppedFlag = true;
    for (const c of this.controllers) c.abort();
  }
}
