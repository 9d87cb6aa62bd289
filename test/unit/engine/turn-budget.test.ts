import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TurnBudget } from '../../../src-main/engine/turn-budget';

describe('TurnBudget', () => {
  it('lets work through at once while the turn has budget left, then refuses', () => {
    const b = new TurnBudget(100);
    expect(b.tryTake(40)).toBe(true);
    expect(b.tryTake(60)).toBe(true);
    expect(b.usedThisTurn).toBe(100);
    expect(b.tryTake(1)).toBe(false);
  });

  it('gives a spent budget back in the next turn', async () => {
    const b = new TurnBudget(100);
    expect(b.tryTake(100)).toBe(true);
    await nextTurn();
    expect(b.usedThisTurn).toBe(0);
    expect(b.tryTake(100)).toBe(true);
  });

  it('spreads waiting work over later turns, in arrival order, so other callbacks run between', async () => {
    const b = new TurnBudget(100);
    const turnOf: number[] = [];
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // Ten takes of 50: two fit in a turn, so they end over at least five turns.
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        await b.take(50);
        turnOf[i] = turn;
      }),
    );
    ticking = false;
    expect(turnOf).toEqual([...turnOf].sort((x, y) => x - y));
    for (let t = 0; t <= turn; t++) expect(turnOf.filter((x) => x === t).length).toBeLessThanOrEqual(2);
    expect(new Set(turnOf).size).toBeGreaterThanOrEqual(5);
  });

  it('lets a take larger than the whole budget through alone, at the start of a turn', async () => {
    const b = new TurnBudget(100);
    expect(b.tryTake(10)).toBe(true);
    expect(b.tryTake(500)).toBe(false);
    await b.next(500);
    expect(b.usedThisTurn).toBe(500);
    expect(b.tryTake(1)).toBe(false);
    await b.take(1);
    expect(b.usedThisTurn).toBe(1);
  });

  it('a waiter is not overtaken by a later small take in the same turn', async () => {
    const b = new TurnBudget(100);
    expect(b.tryTake(90)).toBe(true);
    const waiting = b.next(50);
    expect(b.tryTake(5)).toBe(false); // would fit, but someone waits first
    await waiting;
    expect(b.usedThisTurn).toBe(50);
  });

  it('refuses a budget that is not a whole number of 1 or more', () => {
    expect(() => new TurnBudget(0)).toThrow(RangeError);
    expect(() => new TurnBudget(1.5)).toThrow(/whole number/);
  });
});
