import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractWorld, value } from './contract-world';

/**
 * The verbs the command line needs to be a thin caller: looking a task or job up by the
 * service's id without tracking it, tracking that keeps no id the service does not know,
 * what transfers.add says about the whole upload, and the folder's activity batches.
 */
describe('lookup, track and add, as the CLI calls them', () => {
  let w: ContractWorld;
  afterEach(async () => {
    await w?.close();
  });

  it('fmgr: lookup finds a tracked persistentId and makes no row for an unknown one; track of an unknown id is not-found and keeps nothing', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const file = path.join(w.tmp, 'doc.txt');
    await writeFile(file, 'to be deleted');
    const [id] = value(await svc.transfers.add({ paths: [file], target: { bucket: 'local', key: 'doc.txt' } })).queued;
    await w.until(() => w.lastSeen(id!)?.state === 'done', 'the upload');
    const task = value(await svc.fmgr.submit({ ops: [{ op: 'delete', bucket: 'local', key: 'doc.txt' }] }));

    expect(value(await svc.fmgr.lookup({ persistentId: task.persistentId }))?.id).toBe(task.id);
    expect(value(await svc.fmgr.lookup({ persistentId: ` ${task.persistentId} ` }))?.id).toBe(task.id);
    expect(value(await svc.fmgr.lookup({ persistentId: 'z0.never-submitted' }))).toBeNull();
    const unknown = await svc.fmgr.track({ persistentId: 'z0.never-submitted' });
    expect(!unknown.ok && unknown.error.code).toBe('not-found');
    expect(!unknown.ok && unknown.error.params.reason).toEqual(expect.any(String));
    expect(value(await svc.fmgr.list({})).map((t) => t.persistentId)).toEqual([task.persistentId]);
    const bad = await svc.fmgr.lookup({ persistentId: '' });
    expect(!bad.ok && bad.error.code).toBe('invalid-input');
  });

  it('vca: lookup by jobId, null for an unknown one; track of a jobId the service does not know keeps no row', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const file = path.join(w.tmp, 'clip.mp4');
    await writeFile(file, Buffer.alloc(4000, 1));
    const [id] = value(await svc.transfers.add({ paths: [file], target: { bucket: 'local', key: 'clip.mp4' } })).queued;
    await w.until(() => w.lastSeen(id!)?.state === 'done', 'the upload');
    const job = value(await svc.vca.create({ source: { transferId: id! } }));

    expect(value(await svc.vca.lookup({ jobId: job.jobId }))?.id).toBe(job.id);
    expect(value(await svc.vca.lookup({ jobId: 'no-such-job' }))).toBeNull();
    const unknown = await svc.vca.track({ jobId: 'no-such-job' });
    expect(!unknown.ok && unknown.error.code).toBe('not-found');
    expect(!unknown.ok && unknown.error.message).toMatch(/no-such-job/);
    expect(value(await svc.vca.list({})).map((j) => j.jobId)).toEqual([job.jobId]);
  });

  it('transfers.add: bytesQueued is the whole upload; a file already uploaded comes back with its size and etag; a done row names no persistentId without persistentOps', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const a = path.join(w.tmp, 'a.bin');
    const b = path.join(w.tmp, 'b.bin');
    await writeFile(a, Buffer.alloc(3000, 1));
    await writeFile(b, Buffer.alloc(5000, 2));
    const first = value(await svc.transfers.add({ paths: [a, b], target: { bucket: 'local', prefix: 'p/' } }));
    expect(first.bytesQueued).toBe(8000);
    await w.until(() => first.queued.every((id) => w.lastSeen(id)?.state === 'done'), 'both uploads');
    const again = value(await svc.transfers.add({ paths: [a], target: { bucket: 'local', prefix: 'p/' } }));
    expect(again.queued).toEqual([]);
    expect(again.bytesQueued).toBe(0);
    const done = value(await svc.transfers.get({ id: first.queued[0]! }));
    expect(again.alreadyUploaded).toEqual([
      { path: a, key: 'p/a.bin', transferId: first.queued[0], size: 3000, etag: done.etag },
    ]);
    expect(done.etag).toEqual(expect.any(String));
    expect(done.persistentId).toBeNull();
  });

  it('rootActivity: a watched folder reports its scan and each finished file, in batches', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const folder = path.join(w.tmp, 'watched');
    await mkdir(folder);
    await writeFile(path.join(folder, 'one.txt'), 'one');
    const root = value(
      await svc.roots.add({ path: folder, bucket: 'local', prefix: 'w/', options: { stabilityMs: 0 } }),
    );
    const activity = () =>
      w.events.flatMap((e) => (e.name === 'rootActivity' ? e.payload.events : [])).filter((a) => a.rootId === root.id);
    await w.until(
      () => activity().some((a) => a.type === 'file-done' && a.key === 'w/one.txt' && a.status === 'uploaded'),
      'one.txt reported done',
    );
    expect(activity().some((a) => a.type === 'scan-finished')).toBe(true);
    expect(activity().some((a) => (a.type as string) === 'queued')).toBe(false);
  });
});
