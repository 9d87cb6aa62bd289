/**
 * The video review player loads the job's video from where it is stored: the real
 * `blocklift serve` (embedded emulator) in Chromium, a real WebM video (recorded in the page
 * itself from a canvas with MediaRecorder: no ffmpeg needed) uploaded to the Local account and
 * analysed; the review's <video> reaches loadedmetadata from the emulator's /dl/ URL, with no
 * CSP violation in the console. Before media-src the page's `default-src 'self'` blocked it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { uploadedThrough, analysedThrough, serveSuite } from './serve-app';

const served = serveSuite({
  tmp: 'bl-e2e-video-',
  viewport: { width: 1400, height: 1000 },
  vcaLabels: {
    jobs: [
      { match: 'http://127.0.0.1:*/clip.webm', results: { scenario: [{ attribute: 'a canvas', confidence: 0.9 }] } },
    ],
  },
});
const consoleLines: string[] = [];

// Runs after serveSuite's beforeAll: the page is open.
beforeAll(() => {
  served.page.on('console', (m) => consoleLines.push(m.text()));
});

/** A short real WebM (VP8) video, recorded in the page from a canvas: 12 frames drawn, then the recorder stopped. */
async function recordWebm(): Promise<Buffer> {
  const base64 = (await served.page.evaluate(`new Promise((resolve, reject) => {
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 48;
    const g = canvas.getContext('2d');
    const recorder = new MediaRecorder(canvas.captureStream(30), { mimeType: 'video/webm;codecs=vp8' });
    const parts = [];
    recorder.ondataavailable = (e) => parts.push(e.data);
    recorder.onerror = (e) => reject(new Error(String(e.error)));
    recorder.onstop = () => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result).split(',')[1]);
      reader.readAsDataURL(new Blob(parts, { type: 'video/webm' }));
    };
    recorder.start();
    let frame = 0;
    const draw = () => {
      g.fillStyle = 'hsl(' + frame * 30 + ', 80%, 50%)';
      g.fillRect(0, 0, 64, 48);
      if (++frame < 12) requestAnimationFrame(draw);
      else recorder.stop();
    };
    requestAnimationFrame(draw);
  })`)) as string;
  return Buffer.from(base64, 'base64');
}

describe('the review player', () => {
  it("loads the job's video from the embedded emulator (loadedmetadata), with no CSP violation", async () => {
    const bytes = await recordWebm();
    expect(bytes.length).toBeGreaterThan(100);
    const file = path.join(served.tmp, 'clip.webm');
    await writeFile(file, bytes);
    const done = await analysedThrough(served.app, await uploadedThrough(served.app, file, 'clip.webm'));
    expect(done.sourceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/dl\/.*clip\.webm$/);

    await served.page.getByRole('tab', { name: 'Video review' }).click();
    await served.page.locator('.vca-job').filter({ hasText: 'clip.webm' }).getByRole('button').click();
    const video = served.page.locator('video');
    await video.waitFor();
    expect(await video.getAttribute('src')).toBe(done.sourceUrl);
    // HAVE_METADATA (1) or more: the browser fetched the video and read its header.
    type Media = { readyState: number; error: { code: number } | null; videoWidth: number; videoHeight: number };
    const media = () =>
      video.evaluate((el) => {
        const v = el as unknown as Media;
        return { state: v.readyState, error: v.error?.code ?? null, size: [v.videoWidth, v.videoHeight] };
      });
    const outcome = async () => {
      const m = await media();
      return m.state >= 1 ? 'loaded' : m.error !== null ? `media error ${m.error}` : 'waiting';
    };
    await expect.poll(outcome, { timeout: 30_000 }).not.toBe('waiting');
    expect(await outcome()).toBe('loaded');
    expect(await media()).toMatchObject({ error: null, size: [64, 48] });
    expect(consoleLines.filter((l) => /Content Security Policy|violates/i.test(l))).toEqual([]);
    expect(served.pageErrors).toEqual([]);
  });
});
