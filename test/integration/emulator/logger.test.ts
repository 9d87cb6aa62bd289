/**
 * The emulator reports through the logger it is given and never writes to process.stderr
 * on its own (the embedded emulator lives in the desktop app's process).
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LogFields, Logger } from '../../../src-main/base/logger';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

/** Breaks the one object of the emulator behind its back: its bytes are gone from disk, its row stays. */
function removeObjectFiles(emu: TestEmulator): void {
  const dir = path.join(emu.dataDir, 'objects');
  for (const f of readdirSync(dir)) rmSync(path.join(dir, f));
}

describe('emulator logging', () => {
  const running: TestEmulator[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const emu of running.splice(0)) await emu.close();
  });

  it('reports an internal error to its logger, and writes nothing to stderr without one', async () => {
    const entries: Array<{ level: string; message: string; fields?: LogFields }> = [];
    const at = (level: string) => (message: string, fields?: LogFields) =>
      void entries.push({ level, message, fields });
    const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    const stderr = vi.spyOn(process.stderr, 'write');

    const logged = await startTestEmulator({ logger });
    running.push(logged);
    logged.objects.putBuffer(logged.bucket, 'gone', Buffer.from('bytes'), {});
    removeObjectFiles(logged);
    const r = await fetch(logged.objectUrl(logged.bucket, 'gone'));
    expect(r.status).toBe(500);
    expect(await r.json()).toMatchObject({ code: '500' });
    expect(entries).toEqual([{ level: 'error', message: expect.stringMatching(/GET \/dl\/local\/gone: .*ENOENT/s) }]);

    const quiet = await startTestEmulator();
    running.push(quiet);
    quiet.objects.putBuffer(quiet.bucket, 'gone', Buffer.from('bytes'), {});
    removeObjectFiles(quiet);
    expect((await fetch(quiet.objectUrl(quiet.bucket, 'gone'))).status).toBe(500);
    expect(stderr.mock.calls.map((c) => String(c[0])).filter((t) => t.includes('blocklift emulator'))).toEqual([]);
  });
});
