import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MgrClient } from '../../../src-main/protocol/client';
import type { EngineOptions } from '../../../src-main/engine/engine';
import { LocalTokenSigner } from '../../../src-main/engine/tokens';
import type { ConflictPolicy, TransferSnapshot } from '../../../src-main/shared/models';
import { MiB, etagOfBuffer, startRig, type Rig } from './harness';

/**
 * Issue 19, bytes not sent twice: a file whose bytes this account already stored (a done,
 * verified transfer) is made on the service by an Fmgr copy from that object, followed to
 * its end and checked by stat, instead of being uploaded; a source that is gone or changed,
 * or a copy that fails, leaves the file to the normal upload. Real emulator on 127.0.0.1,
 * real SQLite file, real temp folders; every object made is downloaded and compared.
 */

let rig: Rig | undefined;
const clients: MgrClient[] = [];
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  for (const c of clients.splice(0)) c.close();
});

/** A rig whose account can stat and submit Fmgr tasks, as the service builds it (management client with AK/SK). */
async function copyingRig(engine: Partial<EngineOptions> = {}): Promise<Rig> {
  const r = await startRig();
  const mgr = new MgrClient({
    mgrUrl: r.emu.mgrUrl,
    accessKey: r.emu.config.accessKey,
    secretKey: r.emu.config.secretKey,
  });
  clients.push(mgr);
  const tokens = new LocalTokenSigner(r.emu.config.accessKey, r.emu.config.secretKey, { now: () => r.emu.clock.now() });
  await r.engine.close();
  r.newEngine({
    account: () => ({
      client: r.client,
      tokens,
      stored: (bucket, key, signal) => mgr.stat(bucket, key, signal),
      fmgr: mgr,
    }),
    ...engine,
  });
  return r;
}

function enqueue(r: Rig, rel: string, key: string, conflict: ConflictPolicy = 'skip'): number {
  const [id] = r.engine.enqueue([
    {
      accountId: r.accountId,
      bucket: r.emu.bucket,
      key,
      localPath: path.join(r.dir, rel),
      source: 'manual',
      options: { conflict },
    },
  ]);
  return id!;
}

function kindsLogged(r: Rig, id: number): string[] {
  return (
    r.db.prepare('SELECT kind FROM event_log WHERE transfer_id = ? ORDER BY id').all(id) as Array<{ kind: string }>
  ).map((x) => x.kind);
}

function sentBytes(r: Rig): number {
  return r.emu.uploadCounts().chunkBytes;
}

async function expectVerifiedObject(r: Rig, s: TransferSnapshot, data: Buffer): Promise<void> {
  expect(s.state).toBe('done');
  const rec = r.store.getTransfer(s.id)!;
  expect(rec.remoteHash).toBe(etagOfBuffer(data));
  expect(rec.etag).toBe(etagOfBuffer(data));
  expect((await r.download(s.key)).equals(data)).toBe(true);
}

/** One file uploaded earlier under a/first.bin, and a byte-identical copy of it in another folder. */
async function uploadedEarlier(r: Rig, size: number): Promise<Buffer> {
  const data = await r.file('first.bin', size);
  await mkdir(path.join(r.dir, 'other'), { recursive: true });
  await copyFile(path.join(r.dir, 'first.bin'), path.join(r.dir, 'other', 'same.bin'));
  const first = await r.settled(enqueue(r, 'first.bin', 'a/first.bin'));
  await expectVerifiedObject(r, first, data);
  expect(r.store.getTransfer(first.id)!.copiedFrom).toBeNull();
  return data;
}

// Above the copy threshold (1 MiB) and the form-upload size (4 MiB): its bytes go through mkblk/bput (counted).
const SIZE = 5 * MiB + 123;

describe('a file whose bytes this account already stored', () => {
  it('is copied on the service from the stored object: no bytes sent, done, verified, and says where from', async () => {
    rig = await copyingRig();
    const r = rig;
    const data = await uploadedEarlier(r, SIZE);
    const before = sentBytes(r);
    expect(before).toBe(SIZE);
    const s = await r.settled(enqueue(r, 'other/same.bin', 'b/same.bin'));
    await expectVerifiedObject(r, s, data);
    expect(sentBytes(r)).toBe(before);
    expect(r.store.getTransfer(s.id)!.copiedFrom).toEqual({ bucket: r.emu.bucket, key: 'a/first.bin' });
    expect(s.warning).toBeNull();
    expect(kindsLogged(r, s.id)).toContain('copied-on-service');
    // The source is untouched.
    expect((await r.download('a/first.bin')).equals(data)).toBe(true);
  });

  it('sent again to the key that holds it: done and verified as "already there", no bytes sent (before: sent, then 406)', async () => {
    rig = await copyingRig();
    const r = rig;
    const data = await uploadedEarlier(r, SIZE);
    const putTime = r.emu.objects.stat(r.emu.bucket, 'a/first.bin')!.putTime;
    const before = sentBytes(r);
    const s = await r.settled(enqueue(r, 'first.bin', 'a/first.bin', 'rename'));
    await expectVerifiedObject(r, s, data);
    expect(sentBytes(r)).toBe(before);
    expect(s.key).toBe('a/first.bin');
    expect(s.warning).toMatch(/^already there: "a\/first.bin" in .* holds exactly this file/);
    expect(kindsLogged(r, s.id)).toContain('already-stored');
    expect(r.emu.objects.stat(r.emu.bucket, 'a/first.bin')!.putTime).toBe(putTime);
    expect(r.emu.objects.stat(r.emu.bucket, 'a/first (1).bin')).toBeUndefined();
  });

  it('is uploaded normally when the source object was deleted', async () => {
    rig = await copyingRig();
    const r = rig;
    const data = await uploadedEarlier(r, SIZE);
    r.emu.objects.delete(r.emu.bucket, 'a/first.bin');
    const before = sentBytes(r);
    const s = await r.settled(enqueue(r, 'other/same.bin', 'b/same.bin'));
    await expectVerifiedObject(r, s, data);
    expect(sentBytes(r) - before).toBe(SIZE);
    expect(r.store.getTransfer(s.id)!.copiedFrom).toBeNull();
    expect(kindsLogged(r, s.id)).toContain('copy-source-gone');
    // The gone object is no longer a place with these bytes; the new one is.
    expect(r.store.storedWithBytes(r.accountId, SIZE, etagOfBuffer(data), 5).map((p) => p.key)).toEqual(['b/same.bin']);
  });

  it('is uploaded normally when the source was overwritten with other bytes', async () => {
    rig = await copyingRig();
    const r = rig;
    const data = await uploadedEarlier(r, SIZE);
    const other = Buffer.alloc(SIZE, 7);
    r.emu.objects.putBuffer(r.emu.bucket, 'a/first.bin', other, {});
    const before = sentBytes(r);
    const s = await r.settled(enqueue(r, 'other/same.bin', 'b/same.bin'));
    await expectVerifiedObject(r, s, data);
    expect(sentBytes(r) - before).toBe(SIZE);
    expect(r.store.getTransfer(s.id)!.copiedFrom).toBeNull();
    expect(kindsLogged(r, s.id)).toContain('copy-source-changed');
    expect(r.store.storedWithBytes(r.accountId, SIZE, etagOfBuffer(data), 5).map((p) => p.key)).toEqual(['b/same.bin']);
    expect((await r.download('a/first.bin')).equals(other)).toBe(true);
  });

  it('is uploaded normally when the copy task fails (the source goes between its check and the copy)', async () => {
    rig = await copyingRig();
    const r = rig;
    const data = await uploadedEarlier(r, SIZE);
    // Submissions wait 300 ms before the service handles them; the source is deleted as soon
    // as the engine, having checked it, starts the copy: the task itself fails ("file not found").
    r.emu.setFaults({ latencyMs: 300, latencyEndpoints: ['fmgr'] });
    const id = enqueue(r, 'other/same.bin', 'b/same.bin');
    const off = r.engine.onTransferChange((t) => {
      if (t.id === id && t.state === 'completing') r.emu.objects.delete(r.emu.bucket, 'a/first.bin');
    });
    const before = sentBytes(r);
    const s = await r.settled(id);
    off();
    await expectVerifiedObject(r, s, data);
    expect(sentBytes(r) - before).toBe(SIZE);
    expect(r.store.getTransfer(s.id)!.copiedFrom).toBeNull();
    const failed = r.db
      .prepare("SELECT message FROM event_log WHERE transfer_id = ? AND kind = 'copy-failed'")
      .get(id) as { message: string } | undefined;
    expect(failed?.message).toMatch(/failed \(file not found: .*a\/first\.bin\); uploading/);
  });

  it('is uploaded normally when the copy cannot be submitted (the service refuses Fmgr)', async () => {
    rig = await copyingRig();
    const r = rig;
    const data = await uploadedEarlier(r, SIZE);
    r.emu.setFaults({ errors: [{ endpoints: ['fmgr'], rate: 1, status: 503 }] });
    const before = sentBytes(r);
    const s = await r.settled(enqueue(r, 'other/same.bin', 'b/same.bin'));
    await expectVerifiedObject(r, s, data);
    expect(sentBytes(r) - before).toBe(SIZE);
    expect(kindsLogged(r, s.id)).toContain('copy-failed');
  });

  it('keeps the conflict policy for the destination: skip leaves another object alone, overwrite replaces it by a copy', async () => {
    rig = await copyingRig();
    const r = rig;
    const data = await uploadedEarlier(r, SIZE);
    const theirs = Buffer.from('someone else');
    r.emu.objects.putBuffer(r.emu.bucket, 'b/skip.bin', theirs, {});
    r.emu.objects.putBuffer(r.emu.bucket, 'b/over.bin', theirs, {});
    const skipped = await r.settled(enqueue(r, 'other/same.bin', 'b/skip.bin', 'skip'));
    expect(skipped.state).toBe('skipped');
    expect((await r.download('b/skip.bin')).equals(theirs)).toBe(true);
    const before = sentBytes(r);
    const over = await r.settled(enqueue(r, 'other/same.bin', 'b/over.bin', 'overwrite'));
    await expectVerifiedObject(r, over, data);
    expect(sentBytes(r)).toBe(before);
    expect(r.store.getTransfer(over.id)!.copiedFrom).toEqual({ bucket: r.emu.bucket, key: 'a/first.bin' });
  });

  it('under rename, a destination holding other bytes is not replaced: the copy goes to the renamed key, no bytes sent (before: uploaded to it)', async () => {
    rig = await copyingRig();
    const r = rig;
    const data = await uploadedEarlier(r, SIZE);
    const theirs = Buffer.from('someone else');
    const alsoTheirs = Buffer.from('someone else too');
    r.emu.objects.putBuffer(r.emu.bucket, 'b/ren.bin', theirs, {});
    r.emu.objects.putBuffer(r.emu.bucket, 'b/ren (1).bin', alsoTheirs, {});
    const before = sentBytes(r);
    const s = await r.settled(enqueue(r, 'other/same.bin', 'b/ren.bin', 'rename'));
    // The upload's own naming (engine/conflict.ts renamedKey): " (1)", then " (2)".
    expect(s.key).toBe('b/ren (2).bin');
    await expectVerifiedObject(r, s, data);
    expect(sentBytes(r)).toBe(before);
    expect(r.store.getTransfer(s.id)!.copiedFrom).toEqual({ bucket: r.emu.bucket, key: 'a/first.bin' });
    expect(s.warning).toBeNull();
    const renamed = r.db
      .prepare("SELECT message FROM event_log WHERE transfer_id = ? AND kind = 'copy-renamed' ORDER BY id")
      .pluck()
      .all(s.id);
    expect(renamed).toEqual([
      '"b/ren.bin" holds other bytes (conflict policy rename): copying to "b/ren (1).bin"',
      '"b/ren (1).bin" holds other bytes (conflict policy rename): copying to "b/ren (2).bin"',
    ]);
    expect(kindsLogged(r, s.id)).toContain('copied-on-service');
    expect((await r.download('b/ren.bin')).equals(theirs)).toBe(true);
    expect((await r.download('b/ren (1).bin')).equals(alsoTheirs)).toBe(true);

    // The renamed key already holding this very file: "already there", nothing sent nor copied.
    r.emu.objects.putBuffer(r.emu.bucket, 'c/x.bin', theirs, {});
    r.emu.objects.putBuffer(r.emu.bucket, 'c/x (1).bin', data, {});
    const putTime = r.emu.objects.stat(r.emu.bucket, 'c/x (1).bin')!.putTime;
    const s2 = await r.settled(enqueue(r, 'other/same.bin', 'c/x.bin', 'rename'));
    expect(s2.key).toBe('c/x (1).bin');
    await expectVerifiedObject(r, s2, data);
    expect(sentBytes(r)).toBe(before);
    expect(s2.warning).toMatch(/^already there: "c\/x \(1\).bin"/);
    expect(r.emu.objects.stat(r.emu.bucket, 'c/x (1).bin')!.putTime).toBe(putTime);
  });

  it('the threshold (1 MiB by default): a smaller file is uploaded, a larger one sent by form upload is copied; copyMinBytes moves it', async () => {
    rig = await copyingRig();
    const r = rig;
    const small = await uploadedEarlier(r, 300 * 1024);
    const s1 = await r.settled(enqueue(r, 'other/same.bin', 'b/small.bin'));
    await expectVerifiedObject(r, s1, small);
    expect(r.store.getTransfer(s1.id)!.copiedFrom).toBeNull();
    expect(kindsLogged(r, s1.id)).toEqual([]);

    const mid = await r.file('mid.bin', 2 * MiB);
    await copyFile(path.join(r.dir, 'mid.bin'), path.join(r.dir, 'other', 'mid.bin'));
    await expectVerifiedObject(r, await r.settled(enqueue(r, 'mid.bin', 'a/mid.bin')), mid);
    const s2 = await r.settled(enqueue(r, 'other/mid.bin', 'b/mid.bin'));
    await expectVerifiedObject(r, s2, mid);
    expect(r.store.getTransfer(s2.id)!.copiedFrom).toEqual({ bucket: r.emu.bucket, key: 'a/mid.bin' });

    await r.engine.close();
    const mgr = clients[0]!;
    const tokens = new LocalTokenSigner(r.emu.config.accessKey, r.emu.config.secretKey, {
      now: () => r.emu.clock.now(),
    });
    r.newEngine({
      copyMinBytes: 1,
      account: () => ({ client: r.client, tokens, stored: (b, k, sig) => mgr.stat(b, k, sig), fmgr: mgr }),
    });
    const s3 = await r.settled(enqueue(r, 'other/same.bin', 'c/small.bin'));
    await expectVerifiedObject(r, s3, small);
    // From the newest object holding these bytes.
    expect(r.store.getTransfer(s3.id)!.copiedFrom).toEqual({ bucket: r.emu.bucket, key: 'b/small.bin' });
  });
});
