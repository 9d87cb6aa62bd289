import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CoreWorld, FAST_EMULATOR, isType } from './harness';

const MP4_BYTES = Buffer.concat([Buffer.from('\x00\x00\x00\x18ftypmp42', 'latin1'), Buffer.alloc(4096, 7)]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A video uploaded from a root with "VCA for videos" never loses its analysis: the request is
 * stored before the service is asked, retried with backoff, resumed after a restart, and
 * given up (visibly) only when the service says asking again cannot help.
 */
describe('VCA requests of watched videos', () => {
  let w: CoreWorld;
  afterEach(async () => {
    await w?.close();
  });

  async function dropVideo(name: string): Promise<void> {
    const core = w.core;
    await core.watch.addRoot({
      folder: w.folder,
      accountId: core.localAccountId!,
      bucket: 'local',
      options: { stabilityMs: 200, vcaForVideos: true },
    });
    await writeFile(path.join(w.folder, name), MP4_BYTES);
    await w.waitFor(
      isType('watch', (e) => e.event.type === 'file-done' && e.event.relPath === name && e.event.status === 'uploaded'),
    );
  }

  it('the VCA endpoint answering 503 → retried with backoff; the job is created once the faults stop', async () => {
    w = await CoreWorld.create();
    const core = await w.open();
    const emu = core.embedded!.emulator;
    await emu.setFaults({ errors: [{ endpoints: ['vca'], rate: 1, status: 503 }] });
    await dropVideo('clip.mp4');

    const p = await w.waitFor(isType('problem', (e) => e.problem.key === 'clip.mp4'));
    expect(p.problem.code).toBe('http-503');
    expect(p.problem.message).toContain('will be asked for again');
    // Several attempts fail while the service answers 503; the request stays stored and pending.
    await waitUntil(() => (core.vcaRequests.list()[0]?.attempts ?? 0) >= 3);
    const pending = core.vcaRequests.list();
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      state: 'pending',
      key: 'clip.mp4',
      bucket: 'local',
      origin: 'watch',
      lastErrorCode: 'http-503',
    });
    expect(core.vca.list()).toHaveLength(0);
    expect(
      (await emu.faultEvents()).filter((f) => f.endpoint === 'vca' && f.status === 503).length,
    ).toBeGreaterThanOrEqual(3);

    await emu.setFaults({});
    const job = await w.waitFor(isType('vca-job-changed', (e) => e.job.tracking === 'done'));
    expect(job.job).toMatchObject({
      origin: 'watch',
      bucket: 'local',
      code: 3,
      sourceUrl: `${emu.downloadBaseUrl}/local/clip.mp4`,
    });
    expect(core.vcaRequests.list()).toEqual([]);
    expect(core.vca.list()).toHaveLength(1);
  });

  it('the core closed while a request is pending → reopened → the job is created', async () => {
    w = await CoreWorld.create();
    let core = await w.open();
    await core.embedded!.emulator.setFaults({ errors: [{ endpoints: ['vca'], rate: 1, status: 503 }] });
    await dropVideo('late.mp4');
    await w.waitFor(isType('problem', (e) => e.problem.key === 'late.mp4'));
    expect(core.vcaRequests.list()).toMatchObject([{ state: 'pending', key: 'late.mp4' }]);
    await w.closeCore();

    // A new run: a new embedded emulator (another port, no faults), the same database.
    core = await w.open();
    const job = await w.waitFor(isType('vca-job-changed', (e) => e.job.tracking === 'done'));
    expect(job.job).toMatchObject({
      origin: 'watch',
      code: 3,
      sourceUrl: `${core.embedded!.emulator.downloadBaseUrl}/local/late.mp4`,
    });
    expect(core.vcaRequests.list()).toEqual([]);
    expect(core.vca.list()).toHaveLength(1);
  });

  it('a refusal asking again cannot fix (Smart Media Service Not Enabled) → one attempt, a problem with the message, kept as failed', async () => {
    w = await CoreWorld.create();
    const core = await w.open({ emulatorOptions: { ...FAST_EMULATOR, smartMediaDisabledBuckets: ['local'] } });
    await dropVideo('nope.mp4');

    const p = await w.waitFor(isType('problem', (e) => e.problem.key === 'nope.mp4'));
    expect(p.problem.code).toBe('service-not-enabled');
    expect(p.problem.message).toContain('Video analysis is not enabled for this account');
    // Many backoff periods of the test policy (20–200 ms) later: still one attempt, no job.
    await sleep(800);
    expect(core.vcaRequests.list()).toMatchObject([
      { state: 'failed', attempts: 1, lastErrorCode: 'service-not-enabled' },
    ]);
    expect(w.events.filter((e) => e.type === 'problem')).toHaveLength(1);
    expect(core.vca.list()).toHaveLength(0);

    // Not resumed by a restart either.
    await w.closeCore();
    const again = await w.open({ emulatorOptions: { ...FAST_EMULATOR, smartMediaDisabledBuckets: ['local'] } });
    await sleep(300);
    expect(again.vcaRequests.list()).toMatchObject([{ state: 'failed', attempts: 1 }]);
    expect(w.events.filter((e) => e.type === 'problem')).toHaveLength(1);
  });
});

async function waitUntil(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}
