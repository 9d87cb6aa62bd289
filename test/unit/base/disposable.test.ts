import { afterEach, describe, expect, it, vi } from 'vitest';
import { DisposableStore } from '../../../src-main/base/disposable';
import { setUnexpectedErrorHandler } from '../../../src-main/base/unexpected-error';

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

describe('DisposableStore', () => {
  it('releases everything once, newest first, waiting for each async release', async () => {
    const order: string[] = [];
    const s = new DisposableStore();
    s.add(() => order.push('function'));
    s.add({
      dispose: async () => {
        await new Promise((r) => setTimeout(r, 5));
        order.push('async disposable');
      },
    });
    s.add({ dispose: () => void order.push('disposable') });
    const first = s.dispose();
    expect(s.dispose()).toBe(first); // idempotent: same promise
    await first;
    await s.dispose();
    expect(order).toEqual(['disposable', 'async disposable', 'function']);
    expect(s.isDisposed).toBe(true);
  });

  it('one failing release does not stop the others; dispose() rejects with it afterwards', async () => {
    const order: string[] = [];
    const s = new DisposableStore();
    const boom = new Error('close failed');
    s.add(() => order.push('a'));
    s.add(() => {
      throw boom;
    });
    s.add(() => order.push('c'));
    await expect(s.dispose()).rejects.toBe(boom);
    expect(order).toEqual(['c', 'a']);
  });

  it('several failures reject with an AggregateError holding each', async () => {
    const s = new DisposableStore();
    const e1 = new Error('one');
    const e2 = new Error('two');
    s.add(() => Promise.reject(e1));
    s.add(() => {
      throw e2;
    });
    const err = await s.dispose().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AggregateError);
    expect((err as AggregateError).errors).toEqual([e2, e1]);
  });

  it('a resource added after dispose() is released at once; its failure reaches onUnexpectedError', async () => {
    const seen: unknown[] = [];
    restore = setUnexpectedErrorHandler((e) => seen.push(e));
    const s = new DisposableStore();
    await s.dispose();
    let released = false;
    s.add(() => {
      released = true;
    });
    const boom = new Error('late');
    s.add(() => Promise.reject(boom));
    await vi.waitFor(() => expect(seen).toEqual([boom]));
    expect(released).toBe(true);
  });
});
