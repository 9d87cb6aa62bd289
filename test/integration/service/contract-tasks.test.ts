import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractWorld, value } from './contract-world';

describe('tasks, queue verbs and settings, through the contract', () => {
  let w: ContractWorld;
  afterEach(async () => {
    await w?.close();
  });

  it('Fmgr: submit a copy, follow it to its end in batches, read its history; a mixed submission is refused', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const file = path.join(w.tmp, 'doc.txt');
    await writeFile(file, 'to be copied');
    const [id] = value(await svc.transfers.add({ paths: [file], target: { bucket: 'local', key: 'doc.txt' } })).queued;
    await w.until(() => w.lastSeen(id!)?.state === 'done', 'the upload');

    const task = value(
      await svc.fmgr.submit({
        ops: [{ op: 'copy', srcBucket: 'local', srcKey: 'doc.txt', bucket: 'local', key: 'copy/doc.txt' }],
      }),
    );
    expect(task).toMatchObject({ op: 'copy', origin: 'submitted', tracking: 'active' });
    await w.until(
      () =>
        w.events.some(
          (e) => e.name === 'fmgr' && e.payload.changed.some((t) => t.id === task.id && t.tracking === 'done'),
        ),
      'the task done',
    );
    const got = value(await svc.fmgr.get({ id: task.id }));
    expect(got.items.map((i) => i.code)).toEqual([3]);
    expect(got.history.length).toBeGreaterThan(0);
    expect(got.history.at(-1)).toMatchObject({ source: 'poll' });
    expect(value(await svc.fmgr.list({ tracking: ['done'] })).map((t) => t.id)).toContain(task.id);
    // Tracking the same id again answers the same task, polled at once.
    expect(value(await svc.fmgr.track({ persistentId: task.persistentId })).id).toBe(task.id);

    const mixed = await svc.fmgr.submit({
      ops: [
        { op: 'delete', bucket: 'local', key: 'a' },
        { op: 'copy', srcBucket: 'local', srcKey: 'a', bucket: 'local' },
      ],
    });
    expect(!mixed.ok && mixed.error.code).toBe('fmgr-invalid-op');
    const badOp = await svc.fmgr.submit({ ops: [{ op: 'explode' } as never] });
    expect(!badOp.ok && badOp.error.code).toBe('invalid-input');
  });

  it('VCA: a job for an uploaded video, decisions, accept-above, the label browser and the export', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    const file = path.join(w.tmp, 'clip.mp4');
    await writeFile(file, Buffer.alloc(5000, 3));
    const [id] = value(await svc.transfers.add({ paths: [file], target: { bucket: 'local', key: 'clip.mp4' } })).queued;
    await w.until(() => w.lastSeen(id!)?.state === 'done', 'the upload');
    const job = value(await svc.vca.create({ source: { transferId: id! } }));
    await w.until(
      () =>
        w.events.some(
          (e) => e.name === 'vca' && e.payload.changed.some((j) => j.id === job.id && j.tracking === 'done'),
        ),
      'the job done',
    );
    const done = value(await svc.vca.get({ id: job.id }));
    const labels = done.results.flatMap((r) => r.labels);
    expect(labels.length).toBeGreaterThan(0);
    const first = labels[0]!;
    const decided = value(await svc.vca.decide({ jobId: job.id, labelId: first.id, decision: 'rejected' }));
    expect(decided.results.flatMap((r) => r.labels).find((l) => l.id === first.id)?.decision).toBe('rejected');
    const other = await svc.vca.decide({ jobId: job.id, labelId: 999_999, decision: 'accepted' });
    expect(!other.ok && other.error.code).toBe('not-found');

    value(await svc.vca.setThreshold({ jobId: job.id, minConfidence: 0 }));
    const all = value(await svc.vca.acceptAbove({ jobId: job.id }));
    const after = all.results.flatMap((r) => r.labels);
    expect(after.filter((l) => l.decision === 'pending')).toEqual([]);
    expect(after.find((l) => l.id === first.id)?.decision).toBe('rejected');

    const browse = value(await svc.vca.labels({ minConfidence: 0 }));
    expect(browse.total).toBe(labels.length);
    expect(browse.hits[0]).toMatchObject({ jobId: job.id, source: 'clip.mp4' });
    const text = browse.hits[0]!.attribute;
    expect(
      value(await svc.vca.labels({ text })).hits.every((h) => h.attribute.toLowerCase().includes(text.toLowerCase())),
    ).toBe(true);

    const csv = value(await svc.vca.export({ jobIds: [job.id], format: 'csv' }));
    expect(csv).toMatchObject({ fileName: 'vca-labels.csv', mimeType: 'text/csv' });
    expect(csv.content.split('\n').length).toBeGreaterThan(1);
    const json = value(await svc.vca.export({ jobIds: [job.id], format: 'json' }));
    expect(json.content.length).toBeGreaterThan(2);
    // By URL with no bucket (the Video review screen's "Analyse"): the Local account's bucket.
    const byUrl = value(await svc.vca.create({ source: { url: job.sourceUrl! } }));
    expect(byUrl.bucket).toBe('local');
  });

  it('queue verbs: cancel, retry, remove; settings reject a bad schedule with its code and keep the rest', async () => {
    w = await ContractWorld.create();
    const svc = await w.open();
    value(await svc.settings.set({ schedule: { outside: { action: 'pause' }, windows: [] } }));
    const file = path.join(w.tmp, 'q.txt');
    await writeFile(file, 'queued');
    const [id] = value(await svc.transfers.add({ paths: [file], target: { bucket: 'local', key: 'q.txt' } })).queued;
    await w.until(() => w.lastSeen(id!)?.pausedBy === 'schedule', 'held by the schedule');
    expect(value(await svc.transfers.cancel({ ids: [id!] }))).toEqual({ count: 1 });
    await w.until(() => w.lastSeen(id!)?.state === 'canceled', 'canceled');
    expect(value(await svc.transfers.retry({ ids: [id!] }))).toEqual({ count: 0 });
    expect(value(await svc.transfers.remove({ ids: [id!] }))).toEqual({ count: 1 });
    await w.until(() => w.events.some((e) => e.name === 'transfers' && e.payload.removed.includes(id!)), 'removed');
    const gone = await svc.transfers.get({ id: id! });
    expect(!gone.ok && gone.error.code).toBe('not-found');

    const bad = await svc.settings.set({
      theme: 'dark',
      schedule: { outside: { action: 'run' }, windows: [{ startMinute: 60, endMinute: 60, action: 'pause' }] },
    });
    expect(!bad.ok && bad.error.code).toBe('invalid-schedule');
    const huge = await svc.settings.set({ blockSize: 8 * 1024 * 1024 * 1024 });
    expect(!huge.ok && huge.error).toMatchObject({ code: 'invalid-setting', params: { name: 'blockSize' } });
    const s = value(await svc.settings.get());
    expect(s.theme).toBe('system');
    expect(s.schedule).toEqual({ outside: { action: 'pause' }, windows: [] });
    const set = value(await svc.settings.set({ schedule: null, concurrency: { files: 2, blocksPerFile: 4 } }));
    expect(set).toMatchObject({ schedule: null, concurrency: { files: 2, blocksPerFile: 4 } });
    expect(w.events.filter((e) => e.name === 'settings').at(-1)?.payload).toEqual(set);
    const status = value(await svc.app.status());
    expect(status).toMatchObject({ door: 'in-process', paused: null, can: { openDataFolder: false } });
    expect(status.emulator?.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    // The process's health: event-loop delay measured since the service opened, and memory.
    const h = status.health;
    expect(h.rssBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(h.heapUsedBytes).toBeGreaterThan(0);
    expect(h.windowMs).toBeGreaterThan(0);
    expect(h.eventLoopDelayMs.max).toBeGreaterThanOrEqual(h.eventLoopDelayMs.p99);
    expect(h.eventLoopDelayMs.p99).toBeGreaterThanOrEqual(h.eventLoopDelayMs.p50);
    expect(h.eventLoopDelayMs.p50).toBeGreaterThan(0);
  });
});
