import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etagOfBuffer } from '../../src-main/protocol/etag';
import { jsonLines, runCli, type CliRunOptions } from '../helpers/cli';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

/**
 * Issue 19 on the command line: `blocklift upload` of a file whose bytes the account stored
 * already (an earlier run on the same database) copies it on the service, and its line says
 * so and where from; it is done and verified, no byte of it is sent. The real command in a
 * child process against the test emulator on 127.0.0.1, with a management URL and AK/SK
 * (what a copy on the service needs).
 */

let emu: TestEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-cli-same-'));
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

const env = (): CliRunOptions['env'] => ({
  BLOCKLIFT_DATA: path.join(dir, 'data'),
  BLOCKLIFT_UPLOAD_URL: emu.uploadUrl,
  BLOCKLIFT_MGR_URL: emu.mgrUrl,
  BLOCKLIFT_AK: emu.config.accessKey,
  BLOCKLIFT_SK: emu.config.secretKey,
  HOME: dir,
});
const upload = (args: string[]) =>
  runCli(['upload', ...args, '--bucket', emu.bucket, '--db', 'same.db'], { cwd: dir, env: env() });

interface Line {
  key: string;
  hash: string | null;
  status: string;
  verified: boolean;
  copiedFrom?: { bucket: string; key: string };
}

describe('blocklift upload: a file whose bytes were stored before', () => {
  it('is copied on the service: its line says "copied on the service from <key>", done and verified, no bytes sent', async () => {
    // Above the form-upload size (4 MiB): sent bytes go through mkblk/bput, which the emulator counts.
    const data = randomBytes(5 * 1024 * 1024 + 11);
    await writeFile(path.join(dir, 'first.bin'), data);
    await writeFile(path.join(dir, 'twin.bin'), data);
    await writeFile(path.join(dir, 'third.bin'), data);

    const first = await upload(['first.bin', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const [l1] = jsonLines<Line>(first.stdout);
    expect(l1).toMatchObject({ key: 'first.bin', status: 'done', verified: true });
    expect(l1!.copiedFrom).toBeUndefined();
    const sent = emu.uploadCounts();
    expect(sent.chunkBytes).toBeGreaterThanOrEqual(data.length);

    const twin = await upload(['twin.bin']);
    expect(twin.code, twin.stderr).toBe(0);
    expect(twin.stdout).toMatch(
      new RegExp(
        `^done +twin\\.bin \\(${data.length} bytes\\) ${etagOfBuffer(data)}: copied on the service from first\\.bin \\(bytes stored already, not sent again\\)$`,
        'm',
      ),
    );
    expect(twin.stdout).not.toMatch(/NOT VERIFIED/);

    const third = await upload(['third.bin', '--json']);
    expect(third.code, third.stderr).toBe(0);
    expect(jsonLines<Line>(third.stdout)[0]).toEqual(
      expect.objectContaining({
        key: 'third.bin',
        status: 'done',
        verified: true,
        hash: etagOfBuffer(data),
        // The newest object holding these bytes.
        copiedFrom: { bucket: emu.bucket, key: 'twin.bin' },
      }),
    );

    // Nothing of the two copies went through the upload endpoints; both objects are the file.
    const after = emu.uploadCounts();
    expect(after).toEqual(sent);
    for (const key of ['twin.bin', 'third.bin'])
      expect(emu.objects.stat(emu.bucket, key)?.hash).toBe(etagOfBuffer(data));
  });
});
