/**
 * Background work of one service (Fmgr tasks, VCA jobs), stopped together on close. Each
 * unit of work gets an AbortSignal of its own: one shared signal would collect an 'abort'
 * listener per waiting unit and warn (MaxListenersExceededWarning) once more than ten run
 * at the same time.
 */
export class StopGroup {
  private readonly controllers = new Set<AbortController>();
  private stoppedFlag = false;

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

  /** Aborts the signal of every unit still running and of every unit started later. */
  stop(): void {
    this.stoppedFlag = true;
    for (const c of this.controllers) c.abort();
  }
}
