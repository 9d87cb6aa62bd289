import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccountView, ProxySetting } from '../../../src-main/shared/contract';
import { ContractWorld, value } from './contract-world';
import { FAKE_HOST, startForwardProxy, type ForwardProxy } from '../../helpers/forward-proxy';

describe('per-account proxy', () => {
  let w: ContractWorld | undefined;
  let proxy: ForwardProxy | undefined;
  afterEach(async () => {
    await w?.close();
    await proxy?.close();
    w = undefined;
    proxy = undefined;
  });

  /** A second account on the embedded emulator's keys, with the given upload host and proxy. */
  async function setup(env: (proxyUrl: string) => Record<string, string> = () => ({})) {
    proxy = await startForwardProxy();
    w = await ContractWorld.create();
    const svc = await w.open({ proxyEnv: env(proxy.url) });
    const local = value(await svc.accounts.list()).find((a) => a.isLocal)!;
    const secret = (await readFile(path.join(w.dataDir, 'local-account.key'), 'utf8')).trim();
    const file = path.join(w.tmp, 'p.txt');
    const content = `through the proxy ${Date.now()}`;
    await writeFile(file, content);
    const save = async (proxySetting: ProxySetting, uploadUrl = local.uploadUrl, id?: number): Promise<AccountView> =>
      value(
        await svc.accounts.save({
          ...(id !== undefined ? { id } : {}),
          name: 'Remote',
          uploadUrl,
          accessKey: local.accessKey,
          ...(id === undefined ? { secretKey: secret } : {}),
          proxy: proxySetting,
        }),
      );
    const upload = async (accountId: number, key: string) => {
      const [id] = value(
        await svc.transfers.add({ paths: [file], target: { accountId, bucket: 'local', key } }),
      ).queued;
      await w!.until(() => ['done', 'failed'].includes(w!.lastSeen(id!)?.state ?? ''), `${key} settled`);
      return w!.lastSeen(id!)!;
    };
    const stored = async (key: string) => (await fetch(`${local.downloadDomain}/${key}`)).text();
    return { svc, local, save, upload, stored, content };
  }

  it("an account with a proxy URL uploads through it; 'none' bypasses it; an edit applies to the next transfer", async () => {
    const s = await setup();
    const remote = await s.save({ mode: 'url', url: proxy!.url });
    expect(remote.proxy).toEqual({ mode: 'url', url: proxy!.url });
    expect((await s.upload(remote.id, 'via-proxy.txt')).state).toBe('done');
    const through = proxy!.count;
    expect(through).toBeGreaterThan(0);
    expect(await s.stored('via-proxy.txt')).toBe(s.content);

    const https = await s.svc.accounts.save({
      id: remote.id,
      name: 'Remote',
      uploadUrl: s.local.uploadUrl,
      proxy: { mode: 'url', url: 'https://proxy.example:3128' },
    });
    expect(!https.ok && https.error.code).toBe('invalid-input');

    await s.save({ mode: 'none' }, s.local.uploadUrl, remote.id);
    expect((await s.upload(remote.id, 'direct.txt')).state).toBe('done');
    expect(proxy!.count).toBe(through);
    expect(await s.stored('direct.txt')).toBe(s.content);
  });

  it("'system' takes HTTP_PROXY from the environment and leaves the hosts of NO_PROXY to a direct connection", async () => {
    const s = await setup((url) => ({ HTTP_PROXY: url }));
    // Only the proxy can reach this made-up host name: an upload that is done went through it.
    const port = new URL(s.local.uploadUrl).port;
    const remote = await s.save({ mode: 'system' }, `http://${FAKE_HOST}:${port}`);
    expect((await s.upload(remote.id, 'system.txt')).state).toBe('done');
    expect(await s.stored('system.txt')).toBe(s.content);
    const through = proxy!.count;
    expect(through).toBeGreaterThan(0);

    await w!.svc.close();
    const bypass = await w!.open({ proxyEnv: { HTTP_PROXY: proxy!.url, NO_PROXY: 'localhost, .test' } });
    const direct = value(await bypass.accounts.test({ id: remote.id }));
    // Directly, the made-up name cannot be resolved: the proxy was not asked.
    expect(direct.checks[0]).toMatchObject({ what: 'upload', ok: false, status: null });
    expect(proxy!.count).toBe(through);
  });
});
