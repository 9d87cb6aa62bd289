import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AccountView, Result } from '../../../src-main/shared/contract';
import { fakeElectron } from './fake-electron';

vi.mock('electron', () => fakeElectron);
const { serveRenderer } = await import('../../../src-main/electron/app-protocol');
const { APP_SCHEME } = await import('../../../src-main/electron/ipc');
const { APP_CSP } = await import('../../../src-main/shared/csp');

/** The desktop door's app:// replies: the page's CSP names the accounts' media origins; other files get the fixed one. */
describe('app:// protocol', () => {
  let dir = '';
  let lookups = 0;
  const backend = {
    accounts: {
      list: async (): Promise<Result<AccountView[]>> => {
        lookups++;
        const accounts = [{ downloadDomain: 'http://127.0.0.1:5000/dl/local' }, { downloadDomain: null }];
        return { ok: true, value: accounts as AccountView[] };
      },
    },
  } as Parameters<typeof serveRenderer>[1];
  const get = (url: string) => fakeElectron.protocol.handlers.get(APP_SCHEME)!(new Request(url));

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bl-app-protocol-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Blocklift</title>');
    writeFileSync(path.join(dir, 'assets', 'index.js'), 'console.log(1)');
    serveRenderer(dir, backend);
  });
  beforeEach(() => (lookups = 0));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the page: the accounts' media origins (origins only), asked for when it is served", async () => {
    for (const url of [`${APP_SCHEME}://renderer/`, `${APP_SCHEME}://renderer/index.html`]) {
      const reply = await get(url);
      expect(await reply.text()).toContain('<title>Blocklift</title>');
      expect(reply.headers.get('content-security-policy')).toBe(`${APP_CSP}; media-src 'self' http://127.0.0.1:5000`);
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(lookups).toBe(2);
  });

  it('a script: the fixed policy, and the accounts are not asked for', async () => {
    const reply = await get(`${APP_SCHEME}://renderer/assets/index.js`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-security-policy')).toBe(APP_CSP);
    expect(lookups).toBe(0);
  });

  it('a path out of the renderer folder, a file that is not there: 404, and no lookup', async () => {
    expect((await get(`${APP_SCHEME}://renderer/%2E%2E%2Fsecret`)).status).toBe(404);
    expect((await get(`${APP_SCHEME}://renderer/assets/gone.js`)).status).toBe(404);
    expect(lookups).toBe(0);
  });
});
