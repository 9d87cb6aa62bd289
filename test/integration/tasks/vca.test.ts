import http from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { urlsafeB64Encode } from '../../../src-main/protocol/base64';
import { errorFromReply } from '../../../src-main/protocol/errors';
import { signManagementToken, signNotification } from '../../../src-main/protocol/tokens';
import { VCA_TYPES } from '../../../src-main/protocol/types';
import { readCsv } from '../../helpers/csv';
import { explainVcaError } from '../../../src-main/tasks/vca-errors';
import { exportCsv, exportJson, EXPORT_COLUMNS } from '../../../src-main/tasks/vca-export';
import type { VcaJobView } from '../../../src-main/tasks/vca-view';
import { makeWorld, ACCOUNT_ID, type World } from './setup';

let w: World | undefined;
const tmpDirs: string[] = [];
afterEach(async () => {
  await w?.close();
  w = undefined;
  for (const d of tmpDirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** Writes an emulator label file (vca-labels.ts format) into a temp folder removed after the test. */
async function labelFile(content: unknown): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-vca-labels-'));
  tmpDirs.push(dir);
  const file = path.join(dir, 'labels.json');
  await writeFile(file, JSON.stringify(content));
  return file;
}

/** A signed POST /v1/vca with a hand-made form body, for the rows the typed client cannot produce. */
function rawCreate(world: World, form: string): Promise<{ status: number; body: Buffer }> {
  const token = signManagementToken(world.emu.config.accessKey, world.emu.config.secretKey, '/v1/vca', form);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${world.emu.mgrUrl}/v1/vca`,
      { method: 'POST', headers: { Authorization: token, 'Content-Type': 'application/x-www-form-urlencoded' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(form);
  });
}

const putVideo = (world: World, key: string) =>
  world.emu.objects.putBuffer(world.emu.bucket, key, Buffer.from(`video bytes of ${key}`), { mimeType: 'video/mp4' });

describe('VCA jobs against the emulator', () => {
  it('analyses an uploaded video by its access URL and keeps the labels by type', async () => {
    w = await makeWorld();
    putVideo(w, 'videos/beach.mp4');
    const created = await w.vca.createForObject({
      accountId: ACCOUNT_ID,
      bucket: w.emu.bucket,
      key: 'videos/beach.mp4',
      downloadDomain: `${w.emu.downloadBaseUrl}/${w.emu.bucket}`,
      transferId: 42,
    });
    expect(created).toMatchObject({
      origin: 'transfer',
      transferId: 42,
      sourceUrl: w.emu.objectUrl(w.emu.bucket, 'videos/beach.mp4'),
    });
    const done = await w.vca.waitUntilSettled(created.id);
    expect(done).toMatchObject({
      tracking: 'done',
      code: 3,
      state: 'analysis succeeded',
      notifyResult: 0,
      notifyState: 'not notified',
      error: null,
    });
    // The service's own answer, label for label.
    const remote = await w.client.vcaSearch(done.jobId);
    expect(
      done.results.map((g) => ({
        type: g.type,
        result: g.labels.map((l) => ({ attribute: l.attribute, confidence: l.confidence })),
      })),
    ).toEqual(
      [...remote.results].sort(
        (a, b) => (VCA_TYPES as readonly string[]).indexOf(a.type) - (VCA_TYPES as readonly string[]).indexOf(b.type),
      ),
    );
    expect(done.results.length).toBeGreaterThan(0);
    for (const g of done.results) for (const l of g.labels) expect(l.confidence).toBeGreaterThan(0);
  });

  it('a video that cannot be fetched ends "analysis failed" with the reason', async () => {
    w = await makeWorld();
    const created = await w.vca.create({
      accountId: ACCOUNT_ID,
      bucket: w.emu.bucket,
      source: w.emu.objectUrl(w.emu.bucket, 'videos/missing.mp4'),
    });
    const done = await w.vca.waitUntilSettled(created.id);
    expect(done).toMatchObject({ tracking: 'done', code: 2, state: 'analysis failed', results: [] });
    expect(done.description).toMatch(/cannot be fetched/);
  });

  it('a label-file error ends "analysis failed" with its text', async () => {
    const file = await labelFile({ jobs: [{ match: '*broken*', error: 'the video stream cannot be decoded' }] });
    w = await makeWorld({ emulator: { vcaLabelsFile: file } });
    putVideo(w, 'broken.mp4');
    const created = await w.vca.create({
      accountId: ACCOUNT_ID,
      bucket: w.emu.bucket,
      source: w.emu.objectUrl(w.emu.bucket, 'broken.mp4'),
    });
    const done = await w.vca.waitUntilSettled(created.id);
    expect(done).toMatchObject({ code: 2, description: 'the video stream cannot be decoded' });
  });

  it('turns every row of the VCA error table into a message a person understands', async () => {
    w = await makeWorld({ emulator: { buckets: ['media', 'closed'], smartMediaDisabledBuckets: ['closed'] } });
    const create = (bucket: string, source: string) =>
      w!.vca.create({ accountId: ACCOUNT_ID, bucket, source }).catch((e: unknown) => e);
    expect(await create('no-such-bucket', 'http://example.com/v.mp4')).toMatchObject({
      code: 'bucket-not-found',
      message: expect.stringMatching(/bucket "no-such-bucket" does not exist/),
    });
    // Refused locally with the table's own code before a request is sent.
    expect(await create(' ', 'http://example.com/v.mp4')).toMatchObject({ code: 'bucket-missing' });
    expect(await create(w.emu.bucket, 'not a url')).toMatchObject({ code: 'bad-input' });
    expect(w.vca.list()).toHaveLength(0);

    // The same rows and the rest as the service answers them.
    const rows: [string, string][] = [
      [`source=${urlsafeB64Encode('http://example.com/v.mp4')}`, 'bucket-missing'],
      [`bucket=${w.emu.bucket}`, 'source-missing'],
      [`bucket=${w.emu.bucket}&source=%25%25not-base64`, 'source-invalid'],
      [
        `bucket=${w.emu.bucket}&source=${urlsafeB64Encode('http://example.com/v.mp4')}&notifyUrl=%25%25bad`,
        'notify-url-invalid',
      ],
      [
        `bucket=${w.emu.bucket}&source=${urlsafeB64Encode('http://example.com/v.mp4')}&type=scenario,smell`,
        'type-not-supported',
      ],
      [`bucket=nope&source=${urlsafeB64Encode('http://example.com/v.mp4')}`, 'bucket-not-found'],
      [`bucket=closed&source=${urlsafeB64Encode('http://example.com/v.mp4')}`, 'service-not-enabled'],
    ];
    for (const [form, code] of rows) {
      const r = await rawCreate(w, form);
      const x = explainVcaError(errorFromReply('vca-create', r.status, r.body));
      expect(x.code, form).toBe(code);
      expect(x.message.length).toBeGreaterThan(30);
    }
  });

  it('an unknown job id shows "job not found" on the job, keeps asking, then gives up', async () => {
    w = await makeWorld();
    const j = w.vca.track(ACCOUNT_ID, 'no-such-job');
    const lost = await w.vca.waitUntilSettled(j.id);
    expect(lost).toMatchObject({ tracking: 'lost', error: { code: 'not-found' } });
    expect(lost.error!.message).toMatch(/does not know the analysis job "no-such-job"/);
    expect(lost.polls).toBeGreaterThanOrEqual(3);
  });

  it('receives the signed VCA notification and ends with notifyResult "notification succeeded"', async () => {
    w = await makeWorld({ receiver: true });
    putVideo(w, 'videos/n.mp4');
    const created = await w.vca.create({
      accountId: ACCOUNT_ID,
      bucket: w.emu.bucket,
      source: w.emu.objectUrl(w.emu.bucket, 'videos/n.mp4'),
    });
    expect(created.notifyUrl).toBe(`${w.publicBaseUrl}/notify/vca`);
    const done = await w.vca.waitUntilSettled(created.id);
    expect(done).toMatchObject({ code: 3, notifyResult: 3, notifyState: 'notification succeeded' });
    expect(done.polls).toBeLessThanOrEqual(2);
    expect(w.received).toEqual([{ url: '/bl/notify/vca', status: 200 }]);
    expect(done.results.length).toBeGreaterThan(0);

    // A forged one changes nothing.
    const url = `${w.publicBaseUrl}/notify/vca`;
    const body = JSON.stringify({ jobId: done.jobId, code: 2, desc: 'forged', results: [] });
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        url,
        {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Authorization: signNotification(w!.emu.config.accessKey, 'wrong', url, body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(401);
    expect(w.vca.get(created.id)).toEqual(done);

    // A validly signed but late one (the job is done) does not overwrite the final results either.
    const late = w.vca.applyNotification(ACCOUNT_ID, { jobId: done.jobId, code: 1, desc: 'late', results: [] });
    expect(late).toEqual({ ...done, updatedAt: expect.any(Number) });
    expect(w.vca.get(created.id)).toEqual(late);
  });

  it('review decisions and the threshold survive a restart; the CSV export parses back to the accepted labels', async () => {
    const file = await labelFile({
      jobs: [
        {
          match: '*review.mp4',
          results: {
            scenario: [
              { attribute: 'beach', confidence: 0.97 },
              { attribute: 'desert', confidence: 0.62 },
            ],
            entity: [
              { attribute: 'surf, board', confidence: 0.81 },
              { attribute: 'dog', confidence: 0.3 },
            ],
            figure: [{ attribute: 'Jon "JD" Doe', confidence: 0.55 }],
          },
        },
      ],
    });
    w = await makeWorld({ emulator: { vcaLabelsFile: file } });
    putVideo(w, 'review.mp4');
    const created = await w.vca.create({
      accountId: ACCOUNT_ID,
      bucket: w.emu.bucket,
      source: w.emu.objectUrl(w.emu.bucket, 'review.mp4'),
    });
    const done = await w.vca.waitUntilSettled(created.id);
    const byName = new Map(done.results.flatMap((g) => g.labels.map((l) => [l.attribute, l.id] as const)));
    w.vca.decide(byName.get('desert')!, 'rejected');
    w.vca.decide(byName.get('dog')!, 'accepted');
    w.vca.decide(byName.get('Jon "JD" Doe')!, 'corrected', '  John Doe, Jr.  ');
    w.vca.setMinConfidence(created.id, 0.9);
    expect(() => w!.vca.decide(byName.get('beach')!, 'corrected', '   ')).toThrow(/corrected text/);
    expect(() => w!.vca.setMinConfidence(created.id, 1.5)).toThrow(/between 0 and 1/);

    await w.closeApp();
    w.reopenApp();
    const again = w.vca.get(created.id)!;
    expect(again.minConfidence).toBe(0.9);
    const labels = new Map(again.results.flatMap((g) => g.labels.map((l) => [l.attribute, l] as const)));
    expect(labels.get('desert')).toMatchObject({ decision: 'rejected', effective: 'rejected' });
    expect(labels.get('dog')).toMatchObject({ decision: 'accepted', effective: 'accepted' });
    expect(labels.get('Jon "JD" Doe')).toMatchObject({ decision: 'corrected', correctedText: 'John Doe, Jr.' });
    expect(labels.get('surf, board')).toMatchObject({ decision: 'pending', effective: 'below-threshold' });
    expect(labels.get('beach')).toMatchObject({ decision: 'pending', effective: 'above-threshold' });

    // A later poll (new results) keeps the decisions.
    await w.vca.pollNow(created.id);
    expect(
      w.vca
        .get(created.id)!
        .results.flatMap((g) => g.labels)
        .find((l) => l.attribute === 'dog')!.decision,
    ).toBe('accepted');

    const csvFile = path.join(w.dir, 'labels.csv');
    await writeFile(csvFile, exportCsv(w.vca.exportRows([created.id])));
    const parsed = readCsv(await readFile(csvFile, 'utf8'));
    expect(parsed[0]).toEqual([...EXPORT_COLUMNS]);
    const video = w.emu.objectUrl(w.emu.bucket, 'review.mp4');
    expect(parsed.slice(1)).toEqual([
      [done.jobId, video, w.emu.bucket, 'scenario', 'beach', 'beach', '0.97', 'above-threshold'],
      [done.jobId, video, w.emu.bucket, 'entity', 'dog', 'dog', '0.3', 'accepted'],
      [done.jobId, video, w.emu.bucket, 'figure', 'John Doe, Jr.', 'Jon "JD" Doe', '0.55', 'corrected'],
    ]);
    const json = JSON.parse(exportJson(w.vca.exportRows([created.id]))) as Record<string, unknown>[];
    expect(json.map((r) => [r.type, r.label, r.confidence])).toEqual([
      ['scenario', 'beach', 0.97],
      ['entity', 'dog', 0.3],
      ['figure', 'John Doe, Jr.', 0.55],
    ]);
  });

  it('job ids typed in are fetched and stored (show/export of a job made elsewhere)', async () => {
    w = await makeWorld();
    putVideo(w, 'v/elsewhere.mp4');
    const { jobId } = await w.client.vcaCreate({
      bucket: w.emu.bucket,
      source: w.emu.objectUrl(w.emu.bucket, 'v/elsewhere.mp4'),
    });
    const j = w.vca.track(ACCOUNT_ID, jobId);
    const done: VcaJobView = await w.vca.waitUntilSettled(j.id);
    expect(done).toMatchObject({ origin: 'typed', code: 3, sourceUrl: null });
    expect(w.vca.exportRows([j.id]).every((r) => r.jobId === jobId && r.video === '')).toBe(true);
  });
});
