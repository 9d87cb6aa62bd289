import { describe, expect, it } from 'vitest';
import { m3u8SegmentKeys } from '../../../src-main/emulator/fmgr-urls';

const own = (url: string) => {
  const m = /^http:\/\/dl\.test\/([^/]+)\/(.+)$/.exec(url);
  return m ? { bucket: m[1]!, key: decodeURIComponent(m[2]!) } : undefined;
};

describe('m3u8SegmentKeys', () => {
  it('resolves relative, rooted and absolute references and skips tags, repeats and foreign URLs', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-TARGETDURATION:10',
      '#EXTINF:10,',
      'seg0.ts',
      '#EXTINF:10,',
      'sub/seg1.ts?token=abc',
      '/root/seg2.ts',
      'http://dl.test/b1/videos/seg%203.ts',
      'http://dl.test/other/videos/seg4.ts',
      'https://elsewhere.example/seg5.ts',
      '../../escape.ts',
      'seg0.ts',
      '',
    ].join('\r\n');
    expect(m3u8SegmentKeys(text, 'videos/list.m3u8', own, 'b1')).toEqual([
      'videos/seg0.ts',
      'videos/sub/seg1.ts',
      'root/seg2.ts',
      'videos/seg 3.ts',
    ]);
  });

  it('resolves against the bucket root for a top-level playlist', () => {
    expect(m3u8SegmentKeys('#EXTM3U\na.ts\n../b.ts\n', 'list.m3u8', own, 'b1')).toEqual(['a.ts']);
  });
});
