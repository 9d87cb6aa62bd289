import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  onUnexpectedError,
  runDetached,
  setUnexpectedErrorHandler,
  stderrHandler,
} from '../../../src-main/base/unexpected-error';

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
  vi.restoreAllMocks();
});

describe('onUnexpectedError', () => {
  it('calls the handler set last, and the previous one again once it is restored', () => {
    const a: unknown[] = [];
    const b: unknown[] = [];
    const restoreA = setUnexpectedErrorHandler((e) => a.push(e));
    const restoreB = setUnexpectedErrorHandler((e) => b.push(e));
    onUnexpectedError('one');
    restoreB();
    onUnexpectedError('two');
    restoreA();
    expect(a).toEqual(['two']);
    expect(b).toEqual(['one']);
  });

  it('by default writes the context and the error to stderr', () => {
    const writes: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
      writes.push(String(s));
      return true;
    });
    onUnexpectedError(new Error('lost'), 'a timer');
    expect(writes.join('')).toMatch(/unexpected error in a timer: Error: lost/);
  });

  it('never throws: a throwing handler, and an error reported while handling one, go to stderr', () => {
    const writes: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
      writes.push(String(s));
      return true;
    });
    let calls = 0;
    restore = setUnexpectedErrorHandler(() => {
      calls++;
      onUnexpectedError(new Error('reported from inside the handler'), 'handler listener');
      throw new Error('handler broke');
    });
    expect(() => onUnexpectedError(new Error('first'), 'origin')).not.toThrow();
    expect(calls).toBe(1);
    const text = writes.join('');
    expect(text).toMatch(/in handler listener: Error: reported from inside the handler/);
    expect(text).toMatch(/in origin: Error: first/);
    expect(text).toMatch(/handler broke/);
  });

  it('stderrHandler accepts values that are not errors', () => {
    const writes: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
      writes.push(String(s));
      return true;
    });
    stderrHandler({ code: 7 }, undefined);
    expect(writes.join('')).toBe('unexpected error: [object Object]\n');
  });
});

describe('runDetached', () => {
  it("routes a background promise's rejection to onUnexpectedError with its context", async () => {
    const seen: Array<[unknown, string | undefined]> = [];
    restore = setUnexpectedErrorHandler((e, c) => seen.push([e, c]));
    const boom = new Error('nobody awaited me');
    runDetached(Promise.reject(boom), 'background work');
    runDetached(Promise.resolve(1), 'fine work');
    runDetached(async () => {
      throw boom;
    }, 'async function');
    runDetached(() => {
      throw boom; // a function that throws before returning a promise
    }, 'sync throw');
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    expect(seen).toEqual([
      [boom, 'sync throw'],
      [boom, 'background work'],
      [boom, 'async function'],
    ]);
  });
});
