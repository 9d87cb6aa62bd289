import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'vitest';
import { API_METHODS, type AccountView, type ApiMethod, type Result } from '../../../src-main/shared/contract';

/**
 * Issue 20 point 2: plants an account whose token URL carries a user name, a password and a
 * signature in its query, and one with a known secret key; calls every verb of the contract
 * through the door with inputs that reach those accounts; then no reply, no event, no log
 * line carries the secret, the password, the signature or the whole token URL.
 */

export const PLANTED = {
  secretKey: 'sk-planted-9d1f0c7e-never-leaves',
  password: 'p4ssw0rd',
  sig: 's3cr3t',
};

interface Door {
  call(method: ApiMethod, input: unknown): Promise<Result<unknown>>;
  wire: string[];
}

/** A token provider on 127.0.0.1 that refuses every request and records what it was sent. */
async function startRefusingTokenProvider(): Promise<{ base: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.headers.authorization ?? ''} ${req.url ?? ''}`);
    res.writeHead(403, { 'Content-Type': 'text/plain' }).end('refused by the test provider');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export async function sweepEveryVerbForSecrets(door: Door, tmp: string, dataDir: string): Promise<void> {
  const provider = await startRefusingTokenProvider();
  try {
    const tokenUrl = `http://user:${PLANTED.password}@${provider.base}/issue?sig=${PLANTED.sig}`;
    const save = async (input: unknown) => {
      const r = await door.call('accounts.save', input);
      if (!r.ok) throw new Error(`accounts.save failed: ${JSON.stringify(r.error)}`);
      return r.value as AccountView;
    };
    const tokenAcc = await save({ name: 'Planted token URL', uploadUrl: 'http://127.0.0.1:9', tokenUrl });
    const skAcc = await save({
      name: 'Planted secret',
      uploadUrl: 'http://127.0.0.1:9',
      mgrUrl: 'http://127.0.0.1:9',
      accessKey: 'ak-planted',
      secretKey: PLANTED.secretKey,
    });
    // What the view shows of them.
    expect(tokenAcc.tokenUrl).toBe(`http://${provider.base}/issue`);
    expect(skAcc.secret).toMatch(/^stored · changed \d{4}-\d{2}-\d{2}$/);
    // Saved back as shown (what the settings form does), the stored URL keeps its credentials:
    // the provider still receives them.
    await save({ id: tokenAcc.id, name: tokenAcc.name, uploadUrl: tokenAcc.uploadUrl, tokenUrl: tokenAcc.tokenUrl });

    const dir = path.join(tmp, 'sweep');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, 'f.txt');
    await writeFile(file, 'sweep');
    const inputs: Record<ApiMethod, unknown> = {
      'transfers.list': {},
      'transfers.get': { id: 1 },
      'transfers.add': { paths: [file], target: { accountId: tokenAcc.id, bucket: 'b', prefix: 'sweep/' } },
      'transfers.pause': { all: true },
      'transfers.resume': { all: true },
      'transfers.cancel': { ids: [999_999] },
      'transfers.retry': { ids: [999_999] },
      'transfers.remove': { ids: [999_999] },
      'roots.list': undefined,
      'roots.plan': { path: dir, accountId: tokenAcc.id, bucket: 'b', prefix: 'r/' },
      'roots.add': { path: path.join(tmp, 'no-such-folder'), accountId: tokenAcc.id, bucket: 'b', prefix: 'r/' },
      'roots.update': { id: 999_999, prefix: 'x/' },
      'roots.pause': { id: 999_999 },
      'roots.resume': { id: 999_999 },
      'roots.remove': { id: 999_999 },
      'roots.rescan': { id: 999_999 },
      'roots.previewIgnores': { path: dir, options: {} },
      'fmgr.submit': {
        accountId: skAcc.id,
        ops: [{ op: 'delete', bucket: 'b', key: 'k' }],
      },
      'fmgr.track': { accountId: tokenAcc.id, persistentId: 'no-such-task' },
      'fmgr.lookup': { accountId: skAcc.id, persistentId: 'no-such-task' },
      'fmgr.list': {},
      'fmgr.get': { id: 999_999 },
      'vca.create': { accountId: skAcc.id, source: { url: 'http://127.0.0.1:9/v.mp4', bucket: 'b' } },
      'vca.track': { accountId: tokenAcc.id, jobId: 'no-such-job' },
      'vca.lookup': { accountId: skAcc.id, jobId: 'no-such-job' },
      'vca.list': {},
      'vca.get': { id: 999_999 },
      'vca.decide': { jobId: 999_999, labelId: 1, decision: 'accepted' },
      'vca.acceptAbove': { jobId: 999_999 },
      'vca.setThreshold': { jobId: 999_999, minConfidence: 0.5 },
      'vca.labels': {},
      'vca.export': { jobIds: [999_999], format: 'json' },
      'accounts.list': undefined,
      'accounts.save': { id: skAcc.id, name: skAcc.name, uploadUrl: skAcc.uploadUrl, mgrUrl: skAcc.mgrUrl },
      'accounts.test': { id: tokenAcc.id },
      'accounts.remove': { id: 999_999 },
      'settings.get': undefined,
      'settings.set': {},
      'app.status': undefined,
      'app.openDataFolder': undefined,
      'app.chooseFolder': { path: dir },
      'app.show': {},
      'app.supportBundle': undefined,
    };
    for (const m of API_METHODS) await door.call(m, inputs[m]);
    // The second account's test as well (its secret signs the requests).
    await door.call('accounts.test', { id: skAcc.id });
    // Let the failing transfer and the trackers send their events.
    await new Promise((r) => setTimeout(r, 1500));
    await door.call('transfers.list', {});
    expect(provider.seen.length).toBeGreaterThan(0);
    expect(provider.seen.every((s) => s.includes(`sig=${PLANTED.sig}`))).toBe(true);
    expect(provider.seen.every((s) => s.startsWith('Basic '))).toBe(true);

    const forbidden = [PLANTED.secretKey, PLANTED.password, PLANTED.sig, tokenUrl];
    for (const frame of door.wire) for (const f of forbidden) expect(frame).not.toContain(f);
    for (const name of await readdir(path.join(dataDir, 'logs')).catch(() => [] as string[])) {
      const text = await readFile(path.join(dataDir, 'logs', name), 'utf8');
      for (const f of forbidden) expect(text, `logs/${name}`).not.toContain(f);
    }
  } finally {
    await provider.close();
  }
}
