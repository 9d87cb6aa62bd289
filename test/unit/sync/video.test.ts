import { describe, expect, it } from 'vitest';
import { isVideo as isVideoSync } from '../../../src-main/sync/video';
import { isVideo as isVideoTasks } from '../../../src-main/tasks/video-detect';

describe('video detection: one rule for watched roots and tasks', () => {
  it('tasks re-exports the sync function itself', () => {
    expect(isVideoTasks).toBe(isVideoSync);
  });

  it.each([
    ['cam/clip.MP4', undefined, true],
    ['a/b/c.mov', undefined, true],
    ['src/index.ts', undefined, false], // .ts is left out: TypeScript far more often than MPEG-TS
    ['seg.ts', 'video/mp2t', true], // a MIME type decides when known
    ['clip.mp4', 'text/plain', false],
    ['noext', 'video/webm', true],
    ['list.m3u8', 'video/vnd.mpegurl', false],
    ['clip.mkv', 'application/octet-stream', true],
    ['.mp4', undefined, false],
    ['notes.txt', undefined, false],
  ])('%s (MIME %s) → %s', (p, mime, expected) => {
    expect(isVideoSync(p, mime)).toBe(expected);
  });
});
