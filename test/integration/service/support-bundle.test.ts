import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractWorld, value } from './contract-world';

const SECRET = 'S3CR3T-support-bundle-value-0123456789';

describe('app.supportBundle', () => {
  let w: ContractWorld | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
  });

  it('writes a zip with versions, settings, logs and the transfer lists, with no secret in it', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const local = value(await svc.accounts.list()).find((a) => a.isLocal)!;
    const localSecret = (await readFile(path.join(w.dataDir, 'local-account.key'), 'utf8')).trim();
    // An account the service refuses (unknown access key): its transfer fails with a request id.
    const remote = value(
      await svc.accounts.save({
        name: 'Remote',
        uploadUrl: local.uploadUrl,
        accessKey: 'unknown-ak',
        secretKey: SECRET,
      }),
    );
    const file = path.join(w.tmp, 'a.txt');
    await writeFile(file, 'bundle me');
    const settle = async (accountId: number, key: string) => {
      const [id] = value(
        await svc.transfers.add({ paths: [file], target: { accountId, bucket: 'local', key } }),
      ).queued;
      await w!.until(() => ['done', 'failed'].includes(w!.lastSeen(id!)?.state ?? ''), `${key} settled`);
      return w!.lastSeen(id!)!;
    };
    expect((await settle(local.id, 'ok.txt')).state).toBe('done');
    expect((await settle(remote.id, 'refused.txt')).state).toBe('failed');
    // Leaks a careless line could make: the bundle must not carry them.
    const b64 = Buffer.from(SECRET).toString('base64');
    await mkdir(path.join(w.dataDir, 'logs'), { recursive: true });
    await appendFile(
      path.join(w.dataDir, 'logs', 'blocklift.log'),
      `x info secret ${SECRET} b64 ${b64} local ${localSecret}\nx info Authorization: UpToken ak:abcdefghijklmnopqrstuv:eyJzY29wZSI6ImxvY2FsIn0=\n`,
    );

    // A proxy with a password, saved after the uploads (nothing listens there).
    const proxy = { mode: 'url' as const, url: 'http://user:proxy-pw@127.0.0.1:9' };
    value(
      await svc.accounts.save({
        id: remote.id,
        name: 'Remote',
        uploadUrl: local.uploadUrl,
        accessKey: 'unknown-ak',
        proxy,
      }),
    );

    // A token-URL account (issue 20): its user info and query are credentials; a careless log line shows it whole.
    const tokenUrl = 'https://user:p4ssw0rd@tokens.example/issue?sig=s3cr3t';
    value(await svc.accounts.save({ name: 'Tokens', uploadUrl: local.uploadUrl, tokenUrl }));
    await appendFile(path.join(w.dataDir, 'logs', 'blocklift.log'), `x warn token provider ${tokenUrl} refused\n`);

    const bundle = value(await svc.app.supportBundle());
    expect(path.dirname(bundle.path)).toBe(path.join(w.dataDir, 'support'));
    expect((await stat(bundle.path)).size).toBe(bundle.bytes);
    const listing = execFileSync('unzip', ['-l', bundle.path], { encoding: 'utf8' });
    for (const name of [
      'versions.json',
      'settings.json',
      'event-log.txt',
      'logs/blocklift.log',
      'transfers/uploaded.json',
      'transfers/failed.json',
      'transfers/skipped.json',
    ])
      expect(listing).toContain(name);
    const all = execFileSync('unzip', ['-p', bundle.path], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const show = (name: string) => execFileSync('unzip', ['-p', bundle.path, name], { encoding: 'utf8' });
    for (const leak of [
      SECRET,
      b64,
      b64.replace(/=+$/, ''),
      localSecret,
      'proxy-pw',
      'abcdefghijklmnopqrstuv',
      'p4ssw0rd',
      's3cr3t',
    ])
      expect(all, leak).not.toContain(leak);
    expect(JSON.parse(show('versions.json'))).toMatchObject({ node: process.versions.node, electron: null });
    const uploaded = JSON.parse(show('transfers/uploaded.json')) as Array<{ key: string }>;
    expect(uploaded.map((t) => t.key)).toEqual(['ok.txt']);
    const failed = JSON.parse(show('transfers/failed.json')) as Array<{
      key: string;
      reason: string;
      requestId: string;
    }>;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ key: 'refused.txt', requestId: expect.any(String) });
    expect(failed[0]!.reason).toContain(failed[0]!.requestId);
    const settings = JSON.parse(show('settings.json')) as {
      accounts: Array<{ name: string; hasSecret: boolean; secret: string | null; tokenUrl: string | null }>;
    };
    expect(settings.accounts.find((a) => a.name === 'Remote')).toMatchObject({
      hasSecret: true,
      secret: expect.stringMatching(/^stored · changed \d{4}-\d{2}-\d{2}$/) as unknown,
    });
    // The same text every view shows of the account (one function builds both).
    const shown = value(await svc.accounts.list()).find((a) => a.name === 'Tokens')!;
    expect(settings.accounts.find((a) => a.name === 'Tokens')).toMatchObject({
      tokenUrl: 'https://tokens.example/issue',
      secret: null,
    });
    expect(shown.tokenUrl).toBe('https://tokens.example/issue');
    expect(show('logs/blocklift.log')).toContain('[redacted]');
  });
});
