import { afterEach, describe, expect, it } from 'vitest';
import { onUnexpectedError } from '../../../src-main/base/unexpected-error';
import { CoreWorld } from './harness';

describe('errors nobody awaited, while the core is open', () => {
  let w: CoreWorld | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
  });

  it('become a problem event the doors log and show; after close they no longer reach the core', async () => {
    w = await CoreWorld.create();
    await w.open();
    onUnexpectedError(new Error('a listener threw'), 'test listener');
    const p = await w.waitFor((e) => e.type === 'problem' && e.problem.message.includes('a listener threw'));
    expect(p).toMatchObject({ type: 'problem', problem: { code: 'internal' } });
    expect(p.type === 'problem' && p.problem.message).toContain('(test listener)');

    await w.closeCore();
    const before = w.events.length;
    const stderr = process.stderr.write.bind(process.stderr);
    let written = '';
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written += String(chunk);
      return true;
    }) as typeof process.stderr.write;
    try {
      onUnexpectedError(new Error('after close'), 'test listener');
    } finally {
      process.stderr.write = stderr;
    }
    expect(w.events.length).toBe(before);
    expect(written).toContain('after close');
  });
});
