/**
 * Many Fmgr tasks and VCA jobs at once: each waits on a signal of its own, so no shared
 * AbortSignal collects a listener per task (MaxListenersExceededWarning under load).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFop } from '../../../src-main/protocol/fops';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

describe('many background tasks at once', () => {
  let emu: TestEmulator;
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  beforeAll(async () => {
    emu = await startTestEmulator({ fmgrStepDelayMs: 20 });
    process.on('warning', onWarning);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await emu.close();
  });

  it('runs 30 Fmgr tasks side by side without a MaxListenersExceededWarning', async () => {
    emu.objects.putBuffer(emu.bucket, 'src', Buffer.from('copy me'), {});
    const ids = Array.from({ length: 30 }, (_, i) =>
      emu.fmgr.submit(
        'copy',
        buildFop({ op: 'copy', srcBucket: emu.bucket, srcKey: 'src', bucket: emu.bucket, key: `dst/${i}` }),
        {},
      ),
    );
    await emu.fmgr.idle();
    expect(ids.map((id) => emu.fmgr.status(id)?.code)).toEqual(ids.map(() => 3));
    expect(emu.objects.list(emu.bucket, 'dst/')).toHaveLength(30);
    // Warnings are emitted on the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });
});
