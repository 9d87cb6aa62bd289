import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildFop } from '../../../src-main/protocol/fops';
import { signUploadToken } from '../../../src-main/protocol/tokens';
import type { AppCore } from '../../../src-main/service/app-core';
import { CoreWorld, isType } from './harness';

/** A loopback HTTP server for a test; close() ends its connections too. */
async function serve(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('Fmgr and VCA through the core', () => {
  let w: CoreWorld;
  const servers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await w?.close();
    for (const s of servers.splice(0)) await s.close();
  });

  it('an upload whose token policy has persistentOps: its Fmgr task is tracked (origin upload) to its end', async () => {
    w = await CoreWorld.create();
    const ref: { core?: AppCore } = {};
    // A token provider URL (the account holds no secret): signs with the emulator's keys and adds persistentOps.
    const tokenServer = await serve((req, res) => {
      const emu = ref.core!.embedded!.emulator;
      const q = new URL(req.url ?? '/', 'http://x').searchParams;
      const persistentOps = buildFop({
        op: 'copy',
        srcBucket: 'local',
        srcKey: q.get('key')!,
        bucket: 'local',
        key: `copies/${q.get('key')!}`,
      });
      const token = signUploadToken(emu.config.accessKey, emu.config.secretKey, {
        scope: `${q.get('bucket')}:${q.get('key')}`,
        deadline: Date.now() + 600_000,
        persistentOps: `copy/${persistentOps}`,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token }));
    });
    servers.push(tokenServer);
    const core = (ref.core = await w.open());
    const emu = core.embedded!.emulator;
    const accountId = core.accounts.upsert({
      name: 'token-url',
      uploadUrl: emu.uploadUrl,
      mgrUrl: emu.mgrUrl,
      downloadDomain: null,
      accessKey: null,
      secretRef: null,
      tokenUrl: `${tokenServer.url}/token`,
    });
    const file = path.join(w.tmp, 'report.pdf');
    writeFileSync(file, Buffer.alloc(300_000, 1));
    const [id] = core.engine.enqueue([
      { accountId, bucket: 'local', key: 'report.pdf', localPath: file, source: 'manual' },
    ]);

    const task = await w.waitFor(
      isType('fmgr-task-changed', (e) => e.task.origin === 'upload' && e.task.tracking === 'done'),
    );
    expect(core.engine.get(id!)?.state).toBe('done');
    expect(task.task.accountId).toBe(accountId);
    expect(task.task.items.map((i) => i.code)).toEqual([3]);
    expect((await emu.objects.stat('local', 'copies/report.pdf'))?.size).toBe(300_000);
    expect(core.fmgr.snapshots(task.task.id).length).toBeGreaterThan(0);
  });

  it('notifications pushed to core.notificationHandler update a task submitted through the core', async () => {
    w = await CoreWorld.create();
    const ref: { core?: AppCore } = {};
    const received: number[] = [];
    const app = await serve((req, res) => {
      res.on('finish', () => received.push(res.statusCode));
      ref.core!.notificationHandler(req, res);
    });
    servers.push(app);
    const core = (ref.core = await w.open({ publicBaseUrl: `${app.url}/bl` }));
    const emu = core.embedded!.emulator;
    await emu.objects.putBuffer('local', 'old.txt', Buffer.from('old'), {});

    const submitted = await core.fmgr.submit(core.localAccountId!, 'delete', [
      { op: 'delete', bucket: 'local', key: 'old.txt' },
    ]);
    expect(submitted.notifyUrl).toBe(`${app.url}/bl/notify/fmgr`);
    // The fallback poll is 30 s away (FAST_POLICY.pushFallbackMs): only the push can end it now.
    const done = await w.waitFor(
      isType('fmgr-task-changed', (e) => e.task.id === submitted.id && e.task.codeSource === 'notify'),
      10_000,
    );
    await vi.waitFor(() => expect(received).toContain(200), { timeout: 10_000 });
    expect(done.task.items[0]?.code).toBeGreaterThanOrEqual(3);
    expect(core.fmgr.snapshots(submitted.id).some((s) => s.source === 'notify')).toBe(true);
    expect(await emu.objects.stat('local', 'old.txt')).toBeUndefined();

    // A forged push is refused and changes nothing. (A poll still in flight from the submission may add a
    // snapshot of its own on a busy machine, so only what a push records is counted.)
    const pushed = () => core.fmgr.snapshots(submitted.id).filter((s) => s.source === 'notify').length;
    const before = pushed();
    const forged = await fetch(`${app.url}/bl/notify/fmgr`, {
      method: 'POST',
      headers: { authorization: `${emu.config.accessKey}:forged` },
      body: 'e30',
    });
    expect(forged.status).toBe(401);
    expect(pushed()).toBe(before);
  });

  it('no secret in any event, snapshot or database file of a run; a session secret stays in memory', async () => {
    w = await CoreWorld.create();
    const core = await w.open();
    const emu = core.embedded!.emulator;
    const localSecret = emu.config.secretKey;
    // A CLI-style account whose SK was given by flag: same keys as the emulator, kept in memory only.
    const sessionSecret = localSecret;
    const sessionId = core.useCases.accounts.useSessionAccount({
      name: 'cli test',
      uploadUrl: emu.uploadUrl,
      mgrUrl: emu.mgrUrl,
      downloadDomain: `${emu.downloadBaseUrl}/local`,
      accessKey: emu.config.accessKey,
      secretKey: sessionSecret,
    });
    expect(core.accounts.get(sessionId)!.secretRef).toBe('memory:cli test');

    await core.watch.addRoot({
      folder: w.folder,
      accountId: sessionId,
      bucket: 'local',
      options: { stabilityMs: 100, vcaForVideos: true, localDelete: 'delete-remote' },
    });
    writeFileSync(path.join(w.folder, 'v.mp4'), Buffer.alloc(5000, 3));
    await w.waitFor(isType('vca-job-changed', (e) => e.job.tracking === 'done'));
    await core.fmgr.submit(sessionId, 'copy', [
      { op: 'copy', srcBucket: 'local', srcKey: 'v.mp4', bucket: 'local', key: 'v2.mp4' },
    ]);
    await w.waitFor(isType('fmgr-task-changed', (e) => e.task.op === 'copy' && e.task.tracking === 'done'));
    await w.closeCore();

    const kinds = new Set(w.events.map((e) => e.type));
    for (const k of ['transfer-changed', 'transfer-progress', 'watch', 'fmgr-task-changed', 'vca-job-changed'])
      expect(kinds).toContain(k);
    const all = JSON.stringify(w.events);
    expect(all).not.toContain(localSecret);
    // The database (and its WAL) never hold a secret either; the Local one is only in its key file.
    for (const f of ['blocklift.db', 'blocklift.db-wal']) {
      let bytes = '';
      try {
        bytes = readFileSync(path.join(w.dataDir, f)).toString('latin1');
      } catch {
        continue;
      }
      expect(bytes).not.toContain(sessionSecret);
    }
  });
});
