import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import { FAKE_HOST, startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy';

let emu: TestEmulator;
let proxy: ForwardProxy;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  proxy = await startForwardProxy();
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-cli-proxy-'));
});
afterAll(async () => {
  await proxy.close();
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

describe('blocklift upload and the environment proxy', () => {
  it('goes through HTTP_PROXY to a host only the proxy can reach', async () => {
    const file = path.join(dir, 'p.txt');
    await writeFile(file, 'through the proxy');
    const uploadUrl = `http://${FAKE_HOST}:${new URL(emu.uploadUrl).port}`;
    const env = (key: string, extra: Record<string, string> = {}) => ({
      BLOCKLIFT_DATA: path.join(dir, `data-${key}`),
      BLOCKLIFT_UPLOAD_URL: uploadUrl,
      BLOCKLIFT_AK: emu.config.accessKey,
      BLOCKLIFT_SK: emu.config.secretKey,
      HTTP_PROXY: proxy.url,
      NO_PROXY: '',
      ...extra,
    });
    const ok = await runCli(['upload', file, '--bucket', emu.bucket, '--key', 'p.txt', '--json'], {
      cwd: dir,
      env: env('a'),
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(proxy.count).toBeGreaterThan(0);
    expect((await fetch(emu.objectUrl(emu.bucket, 'p.txt'))).status).toBe(200);
  });
});
