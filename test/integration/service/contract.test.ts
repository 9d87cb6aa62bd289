import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseFile } from '../../../src-main/service/data-dir';
import { ContractWorld, value } from './contract-world';

describe('the app service, through its contract', () => {
  let w: ContractWorld;
  afterEach(async () => {
    await w?.close();
  });

  it('adds files, reports them in batches, lists and details them; bad input comes back as codes', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const folder = path.join(w.tmp, 'pics');
    await mkdir(path.join(folder, 'sub'), { recursive: true });
    await writeFile(path.join(folder, 'a.jpg'), 'aaaa');
    await writeFile(path.join(folder, 'sub', 'b.jpg'), 'bb');
    const added = value(await svc.transfers.add({ paths: [folder], target: { bucket: 'local', prefix: 'up/' } }));
    expect(added.queued).toHaveLength(2);
    await w.until(() => added.queued.every((id) => w.lastSeen(id)?.state === 'done'), 'both transfers done');
    const batch = w.events.filter((e) => e.name === 'transfers').at(-1)!;
    if (batch.name !== 'transfers') throw new Error('unreachable');
    expect(batch.payload.totals.done).toBe(2);
    await w.until(() => w.events.some((e) => e.name === 'batchFinished'), 'batchFinished');
    expect(w.events.find((e) => e.name === 'batchFinished')?.payload).toEqual({
      done: 2,
      failed: 0,
      skipped: 0,
      canceled: 0,
    });

    const page = value(await svc.transfers.list({ text: 'sub/', sort: { field: 'name', direction: 'asc' } }));
    expect(page.rows.map((r) => r.key)).toEqual(['up/sub/b.jpg']);
    expect(page.total).toBe(1);
    const detail = value(await svc.transfers.get({ id: page.rows[0]!.id }));
    expect(detail).toMatchObject({ state: 'done', etagCheck: 'matched', verified: true, bytesDone: 2 });
    expect(detail.blocks).toEqual([{ index: 0, size: 2, bytesDone: 2, state: 'done', restarts: 0 }]);
    expect(detail.url).toMatch(/\/up\/sub\/b\.jpg$/);

    // The same files again: already uploaded, nothing queued.
    const again = value(await svc.transfers.add({ paths: [folder], target: { bucket: 'local', prefix: 'up/' } }));
    expect(again.queued).toEqual([]);
    expect(again.alreadyUploaded).toHaveLength(2);
    // With 'overwrite' as the default policy still nothing is re-sent; only an explicit overwrite does.
    value(await svc.settings.set({ conflict: 'overwrite' }));
    const byDefault = value(await svc.transfers.add({ paths: [folder], target: { bucket: 'local', prefix: 'up/' } }));
    expect(byDefault.queued).toEqual([]);
    expect(byDefault.alreadyUploaded).toHaveLength(2);
    const asked = value(
      await svc.transfers.add({
        paths: [path.join(folder, 'a.jpg')],
        target: { bucket: 'local', prefix: 'up/' },
        options: { conflict: 'overwrite' },
      }),
    );
    expect(asked.queued).toHaveLength(1);
    await w.until(() => w.lastSeen(asked.queued[0]!)?.state === 'done', 'the asked overwrite done');

    const bad = await svc.transfers.list({ limit: 0 } as never);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.code).toBe('invalid-input');
    const extra = await svc.invoke('transfers.get', { id: 1, sneaky: true });
    expect(!extra.ok && extra.error.code).toBe('invalid-input');
    const missing = await svc.transfers.get({ id: 999_999 });
    expect(!missing.ok && missing.error).toMatchObject({ code: 'not-found', params: { id: 999_999 } });
    for (const m of ['transfers.explode', '__proto__.x', 'constructor', 'transfers.constructor'])
      expect(await svc.invoke(m, {})).toMatchObject({ ok: false, error: { code: 'unknown-method' } });
    const gone = await svc.transfers.add({ paths: [path.join(w.tmp, 'nope')], target: { bucket: 'local' } });
    expect(!gone.ok && gone.error.code).toBe('path-not-found');
    const door = await svc.app.openDataFolder();
    expect(!door.ok && door.error.code).toBe('not-supported-here');
    const choose = await svc.app.chooseFolder({});
    expect(!choose.ok && choose.error.code).toBe('not-supported-here');
    const show = await svc.app.show({ paths: [] });
    expect(!show.ok && show.error.code).toBe('not-supported-here');
  });

  it('a missing path is named in the refusal: every missing one of an add (nothing queued), the folder of a plan and of a preview', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const here = path.join(w.tmp, 'here.txt');
    await writeFile(here, 'h');
    const gone1 = path.join(w.tmp, 'gone-1.txt');
    const gone2 = path.join(w.tmp, 'gone-2.txt');
    const one = await svc.transfers.add({ paths: [here, gone1], target: { bucket: 'local' } });
    expect(!one.ok && one.error).toMatchObject({ code: 'path-not-found', params: { path: gone1 } });
    const two = await svc.transfers.add({ paths: [gone1, here, gone2], target: { bucket: 'local' } });
    expect(!two.ok && two.error).toMatchObject({
      code: 'paths-not-found',
      params: { count: 2, paths: `${gone1}, ${gone2}` },
    });
    expect(!two.ok && two.error.message).toContain('remove them');
    expect(value(await svc.transfers.list({})).total).toBe(0);

    const folder = path.join(w.tmp, 'no-such-folder');
    const plan = await svc.roots.plan({ path: folder, bucket: 'local' });
    expect(!plan.ok && plan.error).toMatchObject({ code: 'path-not-found', params: { path: folder } });
    expect(!plan.ok && plan.error.message).toContain(folder);
    const preview = await svc.roots.previewIgnores({ path: folder, options: {}, limit: 50 });
    expect(!preview.ok && preview.error).toMatchObject({ code: 'root-missing', params: { path: folder } });
  });

  it('a watched folder through roots.add uploads, and its batches carry the root', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const folder = path.join(w.tmp, 'watched');
    await mkdir(folder);
    const old = new Date(Date.now() - 60_000);
    await writeFile(path.join(folder, 'one.txt'), 'one');
    await utimes(path.join(folder, 'one.txt'), old, old);
    await writeFile(path.join(folder, 'notes.tmp'), 'ignored by the default rules');
    const plan = value(await svc.roots.plan({ path: folder, bucket: 'local' }));
    expect(plan.newFiles).toBe(1);
    const root = value(await svc.roots.add({ path: folder, bucket: 'local', options: { stabilityMs: 100 } }));
    expect(root.path).toBe(folder);
    await w.until(
      () =>
        value({ ok: true, value: w.events }).some(
          (e) => e.name === 'roots' && e.payload.changed.some((r) => r.counts.uploaded === 1),
        ),
      'the root to count one uploaded file',
    );
    const listed = value(await svc.roots.list()).find((r) => r.id === root.id)!;
    expect(listed.counts).toMatchObject({ uploaded: 1, ignored: 1, rejected: 0 });
    expect(listed.scanning).toBeNull();
    const list = value(await svc.transfers.list({ rootId: root.id }));
    expect(list.rows.map((r) => [r.key, r.rootId, r.source])).toEqual([['one.txt', root.id, 'watch']]);
    const badOpts = await svc.roots.update({ id: root.id, options: { stabilityMs: -1 } });
    expect(!badOpts.ok && badOpts.error.code).toBe('invalid-watch-options');
    const preview = value(await svc.roots.previewIgnores({ path: folder, options: { ignore: ['*.txt'] } }));
    expect(preview).toEqual({
      ignored: [
        { relPath: 'notes.tmp', reason: 'ignore-rule' },
        { relPath: 'one.txt', reason: 'ignore-rule' },
      ],
      ignoredCount: 2,
      includedCount: 0,
    });
  });

  it('restart outside a pause window: what the schedule held resumes, what the user paused stays paused', async () => {
    w = await ContractWorld.create();
    let clock = new Date(2024, 0, 1, 12, 30); // inside the 12:00-13:00 pause window
    const svc = await w.open({ scheduleClock: () => clock });
    value(
      await svc.settings.set({
        bandwidthLimit: 5_000_000,
        schedule: { outside: { action: 'run' }, windows: [{ startMinute: 720, endMinute: 780, action: 'pause' }] },
      }),
    );
    const f1 = path.join(w.tmp, 'held.txt');
    const f2 = path.join(w.tmp, 'mine.txt');
    await writeFile(f1, 'held by the schedule');
    await writeFile(f2, 'paused by me');
    const [held, mine] = value(await svc.transfers.add({ paths: [f1, f2], target: { bucket: 'local', prefix: 's/' } }))
      .queued as [number, number];
    await w.until(
      () => w.lastSeen(held)?.pausedBy === 'schedule' && w.lastSeen(mine)?.pausedBy === 'schedule',
      'both held',
    );
    expect(value(await svc.transfers.pause({ ids: [mine] }))).toEqual({ count: 1 });
    expect(value(await svc.transfers.get({ id: mine })).pausedBy).toBe('user');
    expect(value(await svc.app.status()).paused).toBe('schedule');
    await svc.close();

    clock = new Date(2024, 0, 1, 14, 0);
    w.events = [];
    const again = await w.open({ scheduleClock: () => clock });
    await w.until(() => w.lastSeen(held)?.state === 'done', 'the held transfer done');
    expect(value(await again.transfers.get({ id: mine }))).toMatchObject({ state: 'paused', pausedBy: 'user' });
    expect(value(await again.settings.get()).bandwidthLimit).toBe(5_000_000);
    expect(value(await again.transfers.resume({ ids: [mine] }))).toEqual({ count: 1 });
    await w.until(() => w.lastSeen(mine)?.state === 'done', 'mine done');
  });

  it('accounts: the secret is write-only, kept in a 0600 file, never in a view or event; changes reach the next request', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const saved = value(
      await svc.accounts.save({
        name: 'Remote',
        uploadUrl: 'http://127.0.0.1:9',
        accessKey: 'AK',
        secretKey: 'S3CR3T-value',
      }),
    );
    expect(saved).toMatchObject({ name: 'Remote', hasSecret: true, isLocal: false });
    const all = JSON.stringify([value(await svc.accounts.list()), w.events]);
    expect(all).not.toContain('S3CR3T-value');
    expect(all).not.toContain('secretRef');
    const files = await import('node:fs/promises').then((fs) => fs.readdir(path.join(w.dataDir, 'secrets')));
    expect(files).toHaveLength(1);
    expect((await stat(path.join(w.dataDir, 'secrets', files[0]!))).mode & 0o777).toBe(0o600);

    const test = value(await svc.accounts.test({ id: saved.id }));
    expect(test.checks[0]).toMatchObject({ what: 'upload', ok: false, status: null });
    const local = value(await svc.accounts.list()).find((a) => a.isLocal)!;
    const ok = value(await svc.accounts.test({ id: local.id }));
    expect(ok.checks.map((c) => c.what)).toEqual(['upload', 'manage']);
    expect(ok.checks[0]!.ok).toBe(true);
    expect(JSON.stringify(ok)).not.toContain('S3CR3T');

    const ro = await svc.accounts.save({ id: local.id, name: 'Local', uploadUrl: 'http://127.0.0.1:1' });
    expect(!ro.ok && ro.error.code).toBe('account-local-readonly');
    const cleared = value(
      await svc.accounts.save({ id: saved.id, name: 'Remote', uploadUrl: 'http://127.0.0.1:9', secretKey: null }),
    );
    expect(cleared.hasSecret).toBe(false);
    expect(await import('node:fs/promises').then((fs) => fs.readdir(path.join(w.dataDir, 'secrets')))).toEqual([]);
    expect(value(await svc.accounts.remove({ id: saved.id }))).toEqual({ removed: true });
  });

  it('accounts: a token URL shows without user info and query, a proxy without its password, the secret as "stored · changed <date>"; the shown text saved back keeps what is stored (issue 20)', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const tokenUrl = 'https://user:p4ssw0rd@tokens.example/issue?sig=s3cr3t';
    const proxy = { mode: 'url' as const, url: 'http://puser:proxy-pw@127.0.0.1:9' };
    const saved = value(
      await svc.accounts.save({ name: 'T', uploadUrl: 'http://127.0.0.1:9', tokenUrl, proxy, accessKey: 'AK' }),
    );
    expect(saved).toMatchObject({
      tokenUrl: 'https://tokens.example/issue',
      proxy: { mode: 'url', url: 'http://127.0.0.1:9/' },
      hasSecret: false,
      secret: null,
    });
    // What the settings form sends back unchanged: the stored URL and password stay.
    const again = value(
      await svc.accounts.save({
        id: saved.id,
        name: 'T',
        uploadUrl: saved.uploadUrl,
        tokenUrl: saved.tokenUrl,
        proxy: saved.proxy,
        accessKey: 'AK',
        secretKey: 'S3CR3T-value',
      }),
    );
    expect(again.secret).toBe(`stored · changed ${new Date().toISOString().slice(0, 10)}`);
    const db = new Database(databaseFile(w.dataDir), { readonly: true });
    try {
      expect(db.prepare('SELECT token_url FROM accounts WHERE id = ?').pluck().get(saved.id)).toBe(tokenUrl);
      expect(db.prepare("SELECT value FROM settings WHERE key = 'accountPrefs'").pluck().get()).toContain('proxy-pw');
      // The event log says what changed, as the views show it.
      const log = db
        .prepare("SELECT message FROM event_log WHERE kind = 'account' ORDER BY id")
        .pluck()
        .all() as string[];
      expect(log).toHaveLength(2);
      expect(log[1]).toContain('"tokenUrl":"https://tokens.example/issue"');
      for (const leak of ['p4ssw0rd', 's3cr3t', 'proxy-pw', 'S3CR3T-value']) expect(log.join('\n')).not.toContain(leak);
    } finally {
      db.close();
    }
    // Another text replaces it.
    const changed = value(
      await svc.accounts.save({
        id: saved.id,
        name: 'T',
        uploadUrl: saved.uploadUrl,
        tokenUrl: 'https://t2.example/x',
      }),
    );
    expect(changed.tokenUrl).toBe('https://t2.example/x');
    const all = JSON.stringify([value(await svc.accounts.list()), w.events]);
    for (const leak of ['p4ssw0rd', 's3cr3t', 'proxy-pw', 'S3CR3T-value']) expect(all).not.toContain(leak);
  });

  it('an account edited through accounts.save is used by the very next transfer, with no restart', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const local = value(await svc.accounts.list()).find((a) => a.isLocal)!;
    // The embedded emulator's own keys, as a person would paste them into a second account.
    const secret = (await readFile(path.join(w.dataDir, 'local-account.key'), 'utf8')).trim();
    const remote = value(
      await svc.accounts.save({
        name: 'Remote',
        uploadUrl: local.uploadUrl,
        accessKey: local.accessKey,
        secretKey: secret,
      }),
    );
    const file = path.join(w.tmp, 'r.txt');
    await writeFile(file, 'remote');
    const upload = async (key: string) => {
      const [id] = value(
        await svc.transfers.add({ paths: [file], target: { accountId: remote.id, bucket: 'local', key } }),
      ).queued;
      await w.until(() => ['done', 'failed'].includes(w.lastSeen(id!)?.state ?? ''), `${key} settled`);
      return w.lastSeen(id!)!;
    };
    expect((await upload('r1.txt')).state).toBe('done');

    value(
      await svc.accounts.save({ id: remote.id, name: 'Remote', uploadUrl: local.uploadUrl, accessKey: 'wrong-ak' }),
    );
    const refused = await upload('r2.txt');
    expect(refused.state).toBe('failed');
    expect(JSON.stringify(w.events)).not.toContain(secret);

    value(
      await svc.accounts.save({
        id: remote.id,
        name: 'Remote',
        uploadUrl: local.uploadUrl,
        accessKey: local.accessKey,
      }),
    );
    const retried = value(await svc.transfers.retry({ ids: [refused.id] }));
    expect(retried).toEqual({ count: 1 });
    await w.until(() => w.lastSeen(refused.id)?.state === 'done', 'the retried transfer done');
  });
});
