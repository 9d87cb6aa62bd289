import { afterEach, describe, expect, it } from 'vitest';
import { Emitter } from '../../../src-main/common/emitter';
import { setUnexpectedErrorHandler } from '../../../src-main/common/unexpected-error';

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

function collectErrors(): Array<{ error: unknown; context: string | undefined }> {
  const seen: Array<{ error: unknown; context: string | undefined }> = [];
  restore = setUnexpectedErrorHandler((error, context) => seen.push({ error, context }));
  return seen;
}

describe('Emitter', () => {
  it('calls listeners in the order they were added, until each unsubscribes', () => {
    const e = new Emitter<number>();
    const got: string[] = [];
    const offA = e.add((v) => got.push(`a${v}`));
    e.add((v) => got.push(`b${v}`));
    e.emit(1);
    offA();
    offA(); // a second call does nothing
    e.emit(2);
    expect(got).toEqual(['a1', 'b1', 'b2']);
    expect(e.listenerCount).toBe(1);
  });

  it('a throwing listener reaches onUnexpectedError with the context, and the others still run', () => {
    const seen = collectErrors();
    const e = new Emitter<string>('test emitter');
    const got: string[] = [];
    const boom = new Error('listener bug');
    e.add((v) => got.push(`first ${v}`));
    e.add(() => {
      throw boom;
    });
    e.add((v) => got.push(`third ${v}`));
    expect(() => e.emit('x')).not.toThrow();
    expect(got).toEqual(['first x', 'third x']);
    expect(seen).toEqual([{ error: boom, context: 'test emitter' }]);
  });

  it('a listener removed during an emit is not called after its removal; one added is called from the next emit', () => {
    const e = new Emitter<number>();
    const got: string[] = [];
    let offB: () => void = () => {};
    e.add((v) => {
      got.push(`a${v}`);
      offB();
      if (v === 1) e.add((w) => got.push(`c${w}`));
    });
    offB = e.add((v) => got.push(`b${v}`));
    e.emit(1);
    e.emit(2);
    expect(got).toEqual(['a1', 'a2', 'c2']);
  });

  it('the same function added twice is two subscriptions', () => {
    const e = new Emitter<number>();
    let n = 0;
    const fn = () => n++;
    const off1 = e.add(fn);
    e.add(fn);
    e.emit(0);
    off1();
    e.emit(0);
    expect(n).toBe(3);
  });

  it('clear() removes every listener', () => {
    const e = new Emitter<number>();
    let n = 0;
    e.add(() => n++);
    e.add(() => n++);
    e.clear();
    e.emit(0);
    expect(n).toBe(0);
    expect(e.listenerCount).toBe(0);
  });
});
