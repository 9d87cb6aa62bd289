import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUploadToken } from '../../../src-main/protocol/tokens';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

/** A small seeded PRNG so a failing case replays. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function send(
  base: string,
  method: string,
  p: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; type: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${p}`,
      { method, headers: { ...headers, 'Content-Length': String(body.length) }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: res.headers['content-type'],
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('emulator: bad input never crashes it or writes outside its data folder', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(async () => {
    await emu.close();
  });

  it('answers 600 random malformed requests with JSON errors, never a 500', async () => {
    const rand = prng(20261121);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const junk = [
      '..',
      '%2e%2e',
      '%00',
      'a%00b',
      '%ZZ',
      '-1',
      '99999999999999999999',
      '0',
      '4194304',
      'x:',
      'x:a',
      'key',
      '*',
      '😀',
      'A'.repeat(3000),
      '=',
      'YQ',
      'YQ==',
      '..%2F..%2Fetc',
      '',
    ];
    const shapes = [
      () => `/mkblk/${pick(junk)}/${pick(junk)}`,
      () => `/bput/${pick(junk)}/${pick(junk)}`,
      () => `/mkfile/${pick(junk)}/${pick(junk)}/${pick(junk)}`,
      () => `/mkfile/${pick(junk)}`,
      () => `/dl/${pick(junk)}/${pick(junk)}`,
      () => `/fmgr/${pick(junk)}`,
      () => `/fmgr/status?persistentId=${pick(junk)}`,
      () => `/v1/vca/search?jobId=${pick(junk)}`,
      () => `/${pick(junk)}`,
    ];
    const good = () =>
      signUploadToken(emu.config.accessKey, emu.config.secretKey, {
        scope: pick(['local', 'local:k', 'nope', 'local:a\u0000b']),
        deadline: Date.now() + pick([-1000, 60_000]),
      });
    const auths = [
      good,
      () => `UpToken ${good()}`,
      () => 'garbage',
      () => 'a:b:c',
      () => `${emu.config.accessKey}:${'A'.repeat(56)}:e30=`,
      () => '',
    ];
    let served = 0;
    for (let i = 0; i < 600; i++) {
      const method = pick(['GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'HEAD']);
      const headers: Record<string, string> = {};
      const auth = pick(auths)();
      if (auth) headers.Authorization = auth;
      if (rand() < 0.8) headers.UploadBatch = pick([randomUUID(), 'x'.repeat(200), ' ']);
      headers['Content-Type'] = pick([
        'application/octet-stream',
        'text/plain',
        'application/json',
        'application/x-www-form-urlencoded',
      ]);
      if (rand() < 0.3) headers.Key = pick(junk.filter((j) => !/[^\x20-\x7e]/.test(j)));
      if (rand() < 0.2) headers.Deadline = pick(['-1', 'abc', '3', '99999999']);
      const body = Buffer.from(pick(['', 'abc', '{"x":', 'fops=abc', 'a,b,,c', '\u0000\u0001']));
      const p = pick(shapes)();
      let r;
      try {
        r = await send(emu.uploadUrl, method, p, headers, body);
      } catch (e) {
        // The client library itself may refuse to send some paths (e.g. raw non-ASCII); that is not the server's doing.
        if ((e as NodeJS.ErrnoException).code === 'ERR_UNESCAPED_CHARACTERS') continue;
        throw e;
      }
      served++;
      expect(r.status, `${method} ${p.slice(0, 120)} answered ${r.status}: ${r.text.slice(0, 200)}`).not.toBe(500);
      if (r.status >= 400 && method !== 'HEAD') {
        expect(r.type).toBe('application/json');
        const parsed = JSON.parse(r.text) as { code: unknown; message: unknown };
        expect(typeof parsed.message).toBe('string');
      }
    }
    expect(served).toBeGreaterThan(500);
    // Nothing outside the data folder's own structure, and object files only under generated names.
    expect(readdirSync(emu.dataDir).sort()).toEqual(
      expect.arrayContaining(['blocks', 'emulator.db', 'objects', 'tmp']),
    );
    for (const name of readdirSync(path.join(emu.dataDir, 'objects'))) expect(name).toMatch(/^[0-9a-f]{32}$/);
    // Still serving.
    expect((await send(emu.uploadUrl, 'OPTIONS', '/mkblk/4/0', {}, Buffer.alloc(0))).status).toBe(204);
  });
});
