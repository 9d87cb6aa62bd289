/**
 * A budget of synchronous work per event-loop turn, shared by an engine's uploads. Small
 * files are read with synchronous calls (one open, one read, no thread-pool round trips),
 * which is far cheaper per file than the promise API; but many of them read in one turn
 * would hold the loop (progress events, replies, the UI's requests in `serve`). Each read
 * takes its byte count from the budget of the current turn; when the budget is spent, it
 * waits for a later turn (setImmediate, after I/O), in arrival order. A read larger than the
 * whole budget is let through alone at the start of a turn.
 */
export class TurnBudget {
  private used = 0;
  private resetQueued = false;
  private readonly waiters: Array<{ amount: number; grant: () => void }> = [];

  constructor(readonly perTurn: number) {
    if (!Number.isSafeInteger(perTurn) || perTurn < 1)
      throw new RangeError(`the per-turn budget must be a whole number of 1 or more, not ${perTurn}`);
  }

  /** Units already taken in the current turn. */
  get usedThisTurn(): number {
    return this.used;
  }

  /**
   * Takes `amount` from this turn's budget: true when it fits now (the caller does its work
   * synchronously at once); false when the caller must `await budget.next(amount)` instead.
   */
  tryTake(amount: number): boolean {
    if (this.waiters.length > 0 || (this.used > 0 && this.used + amount > this.perTurn)) return false;
    this.charge(amount);
    return true;
  }

  /** Resolves in a later turn, with `amount` taken from that turn's budget (arrival order kept). */
  next(amount: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ amount, grant: resolve });
      this.queueReset();
    });
  }

  /** Takes `amount`, waiting for a later turn when this one's budget is spent. */
  async take(amount: number): Promise<void> {
    if (!this.tryTake(amount)) await this.next(amount);
  }

  private charge(amount: number): void {
    this.used += amount;
    this.queueReset();
  }

  private queueReset(): void {
    if (this.resetQueued) return;
    this.resetQueued = true;
    setImmediate(() => {
      this.resetQueued = false;
      this.used = 0;
      while (this.waiters.length > 0) {
        const w = this.waiters[0]!;
        if (this.used > 0 && this.used + w.amount > this.perTurn) break;
        this.waiters.shift();
        this.charge(w.amount);
        w.grant();
      }
    });
  }
}
