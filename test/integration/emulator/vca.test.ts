import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultResults } from '../../../src-main/emulator/vca-labels';
import { urlsafeB64Encode } from '../../../src-main/protocol/base64';
import type { MgrClient } from '../../../src-main/protocol/client';
import { ServiceError } from '../../../src-main/protocol/errors';
import { signManagementToken } from '../../../src-main/protocol/tokens';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';
import { mgrClient, putObject, startReceiver, waitJob, type Receiver } from './fmgr-support';

// Video content analysis through the real server: results from the fixture label file or
// the documented default, real reachability checks of the source, every error row of the
// interface document's table, and signed notifications to a real receiver.

const LABELS = path.resolve(__dirname, '../../fixtures/vca-labels.json');
let emu: TestEmulator;
let mgr: MgrClient;
let rx: Receiver;
let media: http.Server;
let mediaBase: string;

beforeAll(async () => {
  emu = await startTestEmulator({
    buckets: ['clips'],
    vcaLabelsFile: LABELS,
    // Long enough that the first search after a create sees code 1 even on a busy machine
    // (with 40 ms, a loaded 2-core VM sometimes answered 3 at once and [1, 3] became [3]).
    vcaDelayMs: 300,
    notifyRetry: { attempts: 3, baseDelayMs: 10 },
  });
  mgr = mgrClient(emu);
  rx = await startReceiver(emu);
  // A video host: HEAD works on /served/*, /nohead/* answers 405 to HEAD and 206 to a ranged GET.
  media = http.createServer((req, res) => {
    if (req.url?.startsWith('/served/talk'))
      res
        .writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': 4 })
        .end(req.method === 'HEAD' ? undefined : 'mp4!');
    else if (req.url?.startsWith('/nohead/')) {
      if (req.method === 'HEAD') res.writeHead(405).end();
      else res.writeHead(req.headers.range ? 206 : 200, { 'Content-Type': 'video/mp4' }).end('m');
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(async () => {
  mgr?.close();
  await emu?.close();
  await rx?.close();
  media?.closeAllConnections();
  await new Promise((r) => media?.close(r));
});

/** A signed POST /v1/vca with a hand-made form, for the rows the typed client cannot produce. */
async function rawCreate(
  form: string,
  keys = emu.config,
): Promise<{ status: number; body: { code?: unknown; message?: string; jobId?: string } }> {
  const auth = signManagementToken(keys.accessKey, keys.secretKey, '/v1/vca', form);
  const r = await fetch(`${emu.mgrUrl}/v1/vca`, {
    method: 'POST',
    headers: { Authorization: auth, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  return { status: r.status, body: (await r.json()) as { code?: unknown; message?: string; jobId?: string } };
}

const b64 = urlsafeB64Encode;

describe('VCA jobs', () => {
  it('analyses an uploaded video: code 1 then 3 with the label file results, notifyResult 0', async () => {
    await putObject(emu, 'clips', 'videos/beach-1.mp4', 'not really a video');
    const source = emu.objectUrl('clips', 'videos/beach-1.mp4');
    const { jobId } = await mgr.vcaCreate({ bucket: 'clips', source });
    const { codes, job } = await waitJob(mgr, jobId);
    expect(codes).toEqual([1, 3]);
    expect(job).toEqual({
      jobId,
      code: 3,
      desc: '',
      notifyResult: 0,
      results: [
        {
          type: 'scenario',
          result: [
            { attribute: 'beach', confidence: 0.97 },
            { attribute: 'outdoor', confidence: 0.88 },
          ],
        },
        { type: 'entity', result: [{ attribute: 'surfboard', confidence: 0.81 }] },
        { type: 'location', result: [{ attribute: 'Bondi', confidence: 0.64 }] },
      ],
    });
  });

  it('gives the documented default labels for a source the file does not list, restricted by type', async () => {
    await putObject(emu, 'clips', 'videos/family.mp4', 'v');
    const source = emu.objectUrl('clips', 'videos/family.mp4');
    const all = await waitJob(mgr, (await mgr.vcaCreate({ bucket: 'clips', source })).jobId);
    expect(all.job.results).toEqual(defaultResults(source));
    const created = await rawCreate(`bucket=clips&source=${b64(source)}&type=entity,keyword`);
    expect(created.status).toBe(200);
    const some = await waitJob(mgr, created.body.jobId!);
    expect(some.job.results).toEqual(defaultResults(source).filter((g) => g.type === 'entity' || g.type === 'keyword'));
  });

  it('analyses an http source on another host after checking it answers (HEAD, or a ranged GET when HEAD is refused)', async () => {
    const talk = await waitJob(
      mgr,
      (await mgr.vcaCreate({ bucket: 'clips', source: `${mediaBase}/served/talk1.mp4` })).jobId,
    );
    expect(talk.job.code).toBe(3);
    expect(talk.job.results.map((g) => g.type)).toEqual(['figure', 'keyword']);
    const nohead = await waitJob(
      mgr,
      (await mgr.vcaCreate({ bucket: 'clips', source: `${mediaBase}/nohead/x.mp4` })).jobId,
    );
    expect(nohead.job.code).toBe(3);
  });

  it('fails (code 2, reason in desc, no results) when the source cannot be fetched', async () => {
    const missingOwn = await waitJob(
      mgr,
      (await mgr.vcaCreate({ bucket: 'clips', source: emu.objectUrl('clips', 'videos/absent.mp4') })).jobId,
    );
    expect(missingOwn.codes).toEqual([1, 2]);
    expect(missingOwn.job).toMatchObject({ code: 2, results: [], notifyResult: 0 });
    expect(missingOwn.job.desc).toMatch(/cannot be fetched: no object clips:videos\/absent\.mp4/);
    const http404 = await waitJob(
      mgr,
      (await mgr.vcaCreate({ bucket: 'clips', source: `${mediaBase}/gone.mp4` })).jobId,
    );
    expect(http404.job.desc).toMatch(/HTTP 404/);
    const refused = await waitJob(
      mgr,
      (await mgr.vcaCreate({ bucket: 'clips', source: 'http://127.0.0.1:1/x.mp4' })).jobId,
    );
    expect(refused.job.code).toBe(2);
    const ftp = await waitJob(mgr, (await mgr.vcaCreate({ bucket: 'clips', source: 'ftp://example.com/x.mp4' })).jobId);
    expect(ftp.job.desc).toMatch(/only http and https/);
  });

  it('fails with the label file entry error for a fetchable source it marks as undecodable', async () => {
    await putObject(emu, 'clips', 'videos/corrupt.mp4', 'x');
    const { job } = await waitJob(
      mgr,
      (await mgr.vcaCreate({ bucket: 'clips', source: emu.objectUrl('clips', 'videos/corrupt.mp4') })).jobId,
    );
    expect(job).toMatchObject({ code: 2, desc: 'the video stream cannot be decoded', results: [] });
  });
});

describe('the label file', () => {
  it('an unusable --vca-labels file stops the emulator from starting, with a message naming it', async () => {
    await expect(startTestEmulator({ vcaLabelsFile: '/nonexistent/labels.json' })).rejects.toThrow(
      /cannot read the VCA label file \/nonexistent\/labels\.json/,
    );
  });
});

describe('VCA error rows', () => {
  const source = () => b64(`${mediaBase}/served/talk1.mp4`);
  it.each([
    ['bucket missing', () => `source=${source()}`, 401, 'Bucket Is Null'],
    ['bucket empty', () => `bucket=&source=${source()}`, 401, 'Bucket Is Null'],
    ['source missing', () => 'bucket=clips', 401, 'Source Is Null'],
    ['source not Base64', () => 'bucket=clips&source=http://x/y.mp4', 401, 'Source Invalid'],
    ['source not a URL', () => `bucket=clips&source=${b64('just words')}`, 401, 'Source Invalid'],
    ['notifyUrl not Base64', () => `bucket=clips&source=${source()}&notifyUrl=%25%25`, 401, 'NotifyUrl Invalid'],
    [
      'notifyUrl not http',
      () => `bucket=clips&source=${source()}&notifyUrl=${b64('mailto:a@b')}`,
      401,
      'NotifyUrl Invalid',
    ],
    [
      'type unknown',
      () => `bucket=clips&source=${source()}&type=scenario,colour`,
      401,
      'Type Invalid,Type Is Not Supported',
    ],
    ['bucket unknown', () => `bucket=nope&source=${source()}`, 404, 'Bucket Not Found'],
  ])('%s → %i %s', async (_what, form, status, message) => {
    const r = await rawCreate(form());
    expect(r).toEqual({ status, body: { code: String(status), message } });
  });

  it('the typed client sees the rows as ServiceError with status and string code', async () => {
    const e = await mgr.vcaCreate({ bucket: 'nope', source: 'http://x/y.mp4' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceError);
    expect(e).toMatchObject({ status: 404, code: '404', message: expect.stringContaining('Bucket Not Found') });
  });

  it('a wrong management token is 401 and creates nothing', async () => {
    const r = await rawCreate(`bucket=clips&source=${source()}`, { ...emu.config, secretKey: 'wrong' });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('401');
    expect(r.body.jobId).toBeUndefined();
  });

  it('search: unknown jobId → 404 JobId Not Found; no jobId → 400', async () => {
    const e = await mgr.vcaSearch('vca-unknown').catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 404, code: '404' });
    const raw = await fetch(`${emu.mgrUrl}/v1/vca/search?jobId=vca-unknown`);
    expect(raw.status).toBe(404);
    expect(await raw.json()).toEqual({ code: '404', message: 'JobId Not Found' });
    expect((await fetch(`${emu.mgrUrl}/v1/vca/search`)).status).toBe(400);
  });
});

describe('VCA notifications', () => {
  it('POSTs signed JSON {jobId, code, desc, results} and records notifyResult 3 on a 200', async () => {
    rx.received.length = 0;
    rx.answers.length = 0;
    rx.answers.push(500); // the first attempt fails, and each is held, so "notifying" (1) is seen
    rx.holdMs = 100;
    await putObject(emu, 'clips', 'videos/beach-2.mp4', 'v');
    const { jobId } = await mgr.vcaCreate({
      bucket: 'clips',
      source: emu.objectUrl('clips', 'videos/beach-2.mp4'),
      notifyUrl: rx.url('/hooks/vca'),
    });
    const { job, notifyResults } = await waitJob(mgr, jobId);
    rx.holdMs = 0;
    expect(job.notifyResult).toBe(3);
    expect(notifyResults[0]).toBe(0);
    expect(notifyResults.slice(-2)).toEqual([1, 3]);
    expect(rx.received.map((r) => r.answered)).toEqual([500, 200]);
    const n = rx.received[1]!;
    expect(n).toMatchObject({ path: '/hooks/vca', contentType: 'application/json', signed: true });
    expect(n.json).toEqual({ jobId, code: 3, desc: '', results: job.results });
  });

  it('a failed analysis is notified too; a receiver that never answers 200 leaves notifyResult 2', async () => {
    rx.received.length = 0;
    rx.answers.length = 0;
    rx.answers.push(404, 404, 404);
    const { jobId } = await mgr.vcaCreate({
      bucket: 'clips',
      source: emu.objectUrl('clips', 'videos/nothing.mp4'),
      notifyUrl: rx.url('/hooks/vca'),
    });
    const { job } = await waitJob(mgr, jobId);
    expect(job).toMatchObject({ code: 2, notifyResult: 2 });
    expect(rx.received).toHaveLength(3);
    expect(rx.received.every((r) => r.signed)).toBe(true);
    expect(rx.received[0]!.json).toMatchObject({ jobId, code: 2, results: [] });
  });

  it('keeps jobs across a restart', async () => {
    await putObject(emu, 'clips', 'videos/beach-3.mp4', 'v');
    const { jobId } = await mgr.vcaCreate({ bucket: 'clips', source: emu.objectUrl('clips', 'videos/beach-3.mp4') });
    const done = await waitJob(mgr, jobId);
    mgr.close();
    emu = await emu.restart();
    mgr = mgrClient(emu);
    expect(await mgr.vcaSearch(jobId)).toEqual(done.job);
  });
});
