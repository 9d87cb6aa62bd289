import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase, schemaVersion, type Db } from '../../../src-main/store/db';
import { MIGRATIONS } from '../../../src-main/store/migrations';
import { FmgrRepo } from '../../../src-main/store/tasks/fmgr-repo';
import { VcaRepo } from '../../../src-main/store/tasks/vca-repo';
import type { FmgrTaskStatus } from '../../../src-main/protocol/types';

let dir: string;
let file: string;
let db: Db;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-tasks-repo-'));
  file = path.join(dir, 'app.db');
  db = openDatabase(file, MIGRATIONS);
});
afterEach(async () => {
  if (db.open) db.close();
  await rm(dir, { recursive: true, force: true });
});

const status = (code: number, itemCode: number): FmgrTaskStatus => ({
  id: 'p1',
  code,
  desc: '',
  separate: '0',
  items: [{ cmd: 'delete/x', code: itemCode, desc: '', error: itemCode === 2 ? 'gone' : '', hash: '', key: 'k' }],
});

describe('migration 002', () => {
  it('upgrades a version-1 database without touching its data', () => {
    db.close();
    const old = path.join(dir, 'old.db');
    const v1 = openDatabase(old, MIGRATIONS.slice(0, 1));
    v1.prepare("INSERT INTO settings (key, value) VALUES ('a', 'b')").run();
    expect(schemaVersion(v1)).toBe(1);
    migrate(v1, MIGRATIONS);
    expect(schemaVersion(v1)).toBe(MIGRATIONS.length);
    expect(v1.prepare("SELECT value FROM settings WHERE key = 'a'").get()).toEqual({ value: 'b' });
    expect(
      v1
        .prepare(
          "SELECT count(*) AS n FROM sqlite_master WHERE name IN ('fmgr_tasks','fmgr_task_items','fmgr_snapshots','vca_jobs','vca_labels')",
        )
        .get(),
    ).toEqual({ n: 5 });
    v1.close();
    db = openDatabase(file, MIGRATIONS);
  });
});

describe('FmgrRepo', () => {
  it('keeps one snapshot per distinct body, in order, counting repeats', () => {
    const r = new FmgrRepo(db);
    const { task } = r.ensure({ accountId: 1, persistentId: 'p1', origin: 'typed' }, 1);
    const up = (s: FmgrTaskStatus, t: number, source: 'poll' | 'notify' = 'poll') =>
      r.recordStatus(task.id, s, { source, tracking: 'active', nextPollAt: null, nowMs: t });
    up(status(0, 0), 10);
    up(status(0, 0), 20);
    up(status(1, 1), 30);
    up(status(1, 1), 40, 'notify');
    up(status(3, 3), 50);
    const snaps = r.snapshots(task.id);
    expect(snaps.map((s) => [s.source, s.code, s.seenCount, s.firstSeenAt, s.lastSeenAt])).toEqual([
      ['poll', 0, 2, 10, 20],
      ['poll', 1, 1, 30, 30],
      ['notify', 1, 1, 40, 40],
      ['poll', 3, 1, 50, 50],
    ]);
    expect(r.mustGet(task.id).polls).toBe(4);
    expect(r.items(task.id)).toEqual([
      {
        index: 0,
        cmd: 'delete/x',
        code: 3,
        description: '',
        error: null,
        hash: null,
        fsize: null,
        key: 'k',
        url: null,
        decompresslist: null,
      },
    ]);
  });

  it('counts errors and the not-found clock, clears them on a status, and reactivates a lost task tracked again', () => {
    const r = new FmgrRepo(db);
    const { task } = r.ensure({ accountId: 1, persistentId: 'p1', origin: 'typed' }, 1);
    r.recordError(task.id, {
      code: 'not-found',
      message: 'm',
      notFound: true,
      tracking: 'active',
      nextPollAt: 5,
      nowMs: 100,
    });
    let t = r.recordError(task.id, {
      code: 'not-found',
      message: 'm',
      notFound: true,
      tracking: 'lost',
      nextPollAt: null,
      nowMs: 200,
    });
    expect(t).toMatchObject({
      consecutiveErrors: 2,
      notFoundSince: 100,
      tracking: 'lost',
      finishedAt: 200,
      errorCode: 'not-found',
    });
    const again = r.ensure({ accountId: 1, persistentId: 'p1', origin: 'upload' }, 300);
    expect(again.created).toBe(false);
    expect(again.task).toMatchObject({
      tracking: 'active',
      origin: 'typed',
      consecutiveErrors: 0,
      notFoundSince: null,
      finishedAt: null,
    });
    r.recordError(task.id, {
      code: 'http-503',
      message: 'm',
      notFound: false,
      tracking: 'active',
      nextPollAt: 5,
      nowMs: 400,
    });
    t = r.recordStatus(task.id, status(3, 3), { source: 'poll', tracking: 'done', nextPollAt: null, nowMs: 500 });
    expect(t).toMatchObject({ errorCode: null, consecutiveErrors: 0, tracking: 'done', finishedAt: 500, code: 3 });
    // The same id under another account is another task.
    expect(r.ensure({ accountId: 2, persistentId: 'p1', origin: 'typed' }, 600).created).toBe(true);
  });
});

describe('VcaRepo', () => {
  it('upserts labels by (type, attribute), keeps decisions, and refuses bad review input', () => {
    const r = new VcaRepo(db);
    const { job } = r.ensure({ accountId: 1, jobId: 'j1', origin: 'created', minConfidence: 0.7 }, 1);
    const u = { fromPoll: true, tracking: 'done' as const, nextPollAt: null, nowMs: 2 };
    r.recordJob(
      job.id,
      {
        code: 3,
        desc: '',
        notifyResult: 0,
        results: [
          {
            type: 'scenario',
            result: [
              { attribute: 'a', confidence: 0.5 },
              { attribute: 'b', confidence: 0.6 },
              { attribute: 'a', confidence: 0.9 },
            ],
          },
        ],
      },
      u,
    );
    let labels = r.labels(job.id);
    expect(labels.map((l) => [l.attribute, l.confidence])).toEqual([
      ['a', 0.9],
      ['b', 0.6],
    ]);
    r.decide(labels[1]!.id, 'corrected', ' B ', 3);
    r.recordJob(
      job.id,
      {
        code: 3,
        desc: '',
        results: [
          {
            type: 'scenario',
            result: [
              { attribute: 'b', confidence: 0.65 },
              { attribute: 'a', confidence: 0.8 },
            ],
          },
        ],
      },
      u,
    );
    labels = r.labels(job.id);
    expect(labels.map((l) => [l.attribute, l.confidence, l.decision, l.correctedText])).toEqual([
      ['b', 0.65, 'corrected', 'B'],
      ['a', 0.8, 'pending', null],
    ]);
    expect(r.mustGet(job.id)).toMatchObject({ notifyResult: 0, minConfidence: 0.7 });
    expect(() => r.decide(9999, 'accepted', undefined, 4)).toThrow(/no label/);
    expect(() => r.decide(labels[0]!.id, 'corrected', '', 4)).toThrow(/corrected text/);
    expect(() => r.setMinConfidence(job.id, -0.1, 4)).toThrow(/between 0 and 1/);
    expect(r.decide(labels[0]!.id, 'pending', undefined, 5)).toMatchObject({
      decision: 'pending',
      correctedText: null,
      decidedAt: null,
    });
  });

  it('the schema itself refuses a corrected label without text', () => {
    const r = new VcaRepo(db);
    const { job } = r.ensure({ accountId: 1, jobId: 'j1', origin: 'created' }, 1);
    r.recordJob(
      job.id,
      { code: 3, desc: '', results: [{ type: 'logo', result: [{ attribute: 'x', confidence: 0.5 }] }] },
      { fromPoll: true, tracking: 'done', nextPollAt: null, nowMs: 2 },
    );
    expect(() => db.prepare("UPDATE vca_labels SET decision = 'corrected', corrected_text = NULL").run()).toThrow(
      /CHECK/,
    );
  });
});
