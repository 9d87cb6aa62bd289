import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MgrClient } from '../../../src-main/protocol/client';
import type { StoredObjectLookup } from '../../../src-main/engine/engine';
import { LocalTokenSigner } from '../../../src-main/engine/tokens';
import type { ConflictPolicy, TransferSnapshot } from '../../../src-main/shared/models';
import type { TestEmulator } from '../../helpers/emulator';
import { MiB, etagOfBuffer, startRig, type Rig } from './harness';

/**
 * Issue 20 point 1: when mkfile or a form upload meets 406 (the key exists), the engine asks
 * the service what it stores there (`GET /stat`, a management token): the same bytes end the
 * transfer done and verified with a line saying it was already there; other bytes, or a
 * check that cannot be made, go to the conflict policy as before.
 */

let rig: Rig | undefined;
const clients: MgrClient[] = [];
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  for (const c of clients.splice(0)) c.close();
});

/** The account's stat lookup as the service builds it: the management client with AK/SK. */
function statOf(emu: TestEmulator): StoredObjectLookup {
  const mgr = new MgrClient({ mgrUrl: emu.mgrUrl, accessKey: emu.config.accessKey, secretKey: emu.config.secretKey });
  clients.push(mgr);
  return (bucket, key, signal) => mgr.stat(bucket, key, signal);
}

/** A new engine on the rig's database whose account can ask what is stored (or not, `stored: undefined`). */
function engineWith(r: Rig, stored: StoredObjectLookup | undefined, formUploadMaxBytes?: number) {
  const old = r.engine;
  return old.close().then(() =>
    r.newEngine({
      account: () => ({ client: r.client, tokens: tokensOf(r), stored }),
      ...(formUploadMaxBytes === undefined ? {} : { formUploadMaxBytes }),
    }),
  );
}

const signers = new WeakMap<Rig, LocalTokenSigner>();
function tokensOf(r: Rig): LocalTokenSigner {
  let t = signers.get(r);
  if (!t) {
    t = new LocalTokenSigner(r.emu.config.accessKey, r.emu.config.secretKey, { now: () => r.emu.clock.now() });
    signers.set(r, t);
  }
  return t;
}

function enqueue(r: Rig, name: string, key: string, conflict: ConflictPolicy = 'skip'): number {
  const [id] = r.engine.enqueue([
    {
      accountId: r.accountId,
      bucket: r.emu.bucket,
      key,
      localPath: path.join(r.dir, name),
      source: 'manual',
      options: { conflict },
    },
  ]);
  return id!;
}

function logOf(r: Rig, id: number): Array<{ level: string; kind: string; message: string }> {
  return r.db.prepare('SELECT level, kind, message FROM event_log WHERE transfer_id = ? ORDER BY id').all(id) as Array<{
    level: string;
    kind: string;
    message: string;
  }>;
}

function verified(r: Rig, s: TransferSnapshot): boolean {
  const rec = r.store.getTransfer(s.id)!;
  return rec.state === 'done' && rec.remoteHash !== null && rec.remoteHash === rec.etag;
}

describe('406 on an object that is already this file', () => {
  it('a run killed between the form upload landing and its record: the resumed run ends done, verified, "already there"', async () => {
    rig = await startRig();
    const r = rig;
    await engineWith(r, statOf(r.emu));
    const data = await r.file('small.bin', 300 * 1024);
    const id = enqueue(r, 'small.bin', 'c/small.bin');
    expect((await r.settled(id)).state).toBe('done');
    const putTime = r.emu.objects.stat(r.emu.bucket, 'c/small.bin')!.putTime;

    // What SIGKILL after the service stored it and before the engine recorded it leaves:
    // the row still uploading, nothing of the reply recorded.
    await r.engine.close();
    r.db
      .prepare(
        "UPDATE transfers SET state = 'uploading', remote_hash = NULL, etag = NULL, warning = NULL, finished_at = NULL WHERE id = ?",
      )
      .run(id);
    await engineWith(r, statOf(r.emu));
    const s = await r.settled(id);
    expect(s.state).toBe('done');
    expect(verified(r, s)).toBe(true);
    expect(r.store.getTransfer(id)!.remoteHash).toBe(etagOfBuffer(data));
    expect(s.warning).toMatch(/^already there: "c\/small.bin" in .* holds exactly this file/);
    expect(logOf(r, id)).toContainEqual(expect.objectContaining({ level: 'info', kind: 'already-stored' }));
    // Not stored again.
    expect(r.emu.objects.stat(r.emu.bucket, 'c/small.bin')!.putTime).toBe(putTime);
  });

  it('the same bytes from a fresh database (mkfile, in blocks) end done and verified, with any conflict policy', async () => {
    rig = await startRig();
    const r = rig;
    const data = await r.file('big.bin', 9 * MiB + 5);
    r.emu.objects.putBuffer(r.emu.bucket, 'c/big.bin', data, {});
    r.emu.objects.putBuffer(r.emu.bucket, 'c/big2.bin', data, {});
    await engineWith(r, statOf(r.emu), 0);
    const skip = await r.settled(enqueue(r, 'big.bin', 'c/big.bin', 'skip'), 120_000);
    const rename = await r.settled(enqueue(r, 'big.bin', 'c/big2.bin', 'rename'), 120_000);
    for (const s of [skip, rename]) {
      expect(s.state).toBe('done');
      expect(verified(r, s)).toBe(true);
      expect(s.warning).toContain('already there');
    }
    expect(rename.key).toBe('c/big2.bin');
    expect(r.emu.objects.stat(r.emu.bucket, 'c/big2 (1).bin')).toBeUndefined();
  });

  it('other bytes under the key fall to the conflict policy as before: skipped, saying so', async () => {
    rig = await startRig();
    const r = rig;
    await r.file('mine.bin', 64 * 1024);
    r.emu.objects.putBuffer(r.emu.bucket, 'c/mine.bin', Buffer.from('someone else'), {});
    await engineWith(r, statOf(r.emu));
    const s = await r.settled(enqueue(r, 'mine.bin', 'c/mine.bin'));
    expect(s.state).toBe('skipped');
    expect(s.warning).toContain('skipped (conflict policy skip); it holds other content');
    expect(r.emu.objects.stat(r.emu.bucket, 'c/mine.bin')!.hash).toBe(etagOfBuffer(Buffer.from('someone else')));
  });

  it('a check that cannot be made (stat refused, or no way to ask) applies the policy, and the reason is logged', async () => {
    rig = await startRig();
    const r = rig;
    const data = await r.file('same.bin', 10 * 1024);
    r.emu.objects.putBuffer(r.emu.bucket, 'c/same.bin', data, {});
    r.emu.setFaults({ errors: [{ endpoints: ['stat'], rate: 1, status: 503 }] });
    await engineWith(r, statOf(r.emu));
    const refused = await r.settled(enqueue(r, 'same.bin', 'c/same.bin'));
    expect(refused.state).toBe('skipped');
    expect(refused.warning).toContain('whether it holds this file could not be checked: stat 503');
    expect(logOf(r, refused.id)).toContainEqual(expect.objectContaining({ level: 'warn', kind: 'stat-failed' }));

    r.emu.setFaults({});
    await engineWith(r, undefined);
    const unasked = await r.settled(enqueue(r, 'same.bin', 'c/same.bin'));
    expect(unasked.state).toBe('skipped');
    expect(unasked.warning).toContain('could not be checked: this account has no way to ask the service');
  });
});
