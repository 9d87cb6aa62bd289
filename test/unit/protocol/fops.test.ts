import { describe, expect, it } from 'vitest';
import { buildFmgrBody, buildFop, parseFop, FopsSyntaxError, type FmgrOp } from '../../../src-main/protocol/fops';
import { urlsafeB64Encode as b64 } from '../../../src-main/protocol/base64';
import {
  fmgrItemState,
  fmgrTaskState,
  fmgrNotificationState,
  vcaJobState,
  vcaNotifyState,
} from '../../../src-main/protocol/codes';

const samples: FmgrOp[] = [
  { op: 'fetch', fetchURL: 'http://127.0.0.1/a.mp4', bucket: 'b', key: 'k', md5: 'd41d8cd98f00b204e9800998ecf8427e' },
  { op: 'copy', srcBucket: 'b', srcKey: 'dir/a:b', bucket: 'c', key: 'x' },
  { op: 'move', srcBucket: 'b', srcKey: 'a', bucket: 'c', prefix: 'p/' },
  { op: 'delete', bucket: 'b', key: 'k' },
  { op: 'deletePrefix', bucket: 'b', prefix: 'logs/', output: 'deleted.txt' },
  { op: 'deletem3u8', bucket: 'b', key: 'v.m3u8', deletets: 1 },
  { op: 'setdeadline', bucket: 'b', prefix: 'tmp/', deadline: -1 },
  { op: 'compress', bucket: 'b', keys: ['a', 'b/c'], saveAsBucket: 'b', saveAsKey: 'all.zip' },
];

describe('fops grammar', () => {
  it.each(samples.map((s) => [s.op, s] as const))('%s round-trips', (_n, op) => {
    expect(parseFop(op.op, buildFop(op))).toEqual(JSON.parse(JSON.stringify(op)));
  });
  it('writes the shapes of protocol-notes', () => {
    expect(buildFop({ op: 'delete', bucket: 'b', key: 'k' })).toBe(`bucket/${b64('b')}/key/${b64('k')}`);
    expect(buildFop(samples[7]!)).toBe(`bucket/${b64('b')}/keys/${b64('a')}|${b64('b/c')}/saveas/${b64('b:all.zip')}`);
    expect(buildFop(samples[6]!)).toBe(`bucket/${b64('b')}/prefix/${b64('tmp/')}/deadline/-1`);
    const body = new URLSearchParams(
      buildFmgrBody([samples[3]!, samples[3]!], { notifyURL: 'http://n', force: 1, separate: 0 }),
    );
    expect(body.get('fops')).toBe(`${buildFop(samples[3]!)};${buildFop(samples[3]!)}`);
    expect(body.get('notifyURL')).toBe(b64('http://n'));
    expect(body.get('force')).toBe('1');
  });
  it('refuses malformed entries with the reason', () => {
    expect(() => parseFop('delete', `bucket/${b64('b')}`)).toThrow(/needs key/);
    expect(() => parseFop('delete', `bucket/${b64('b')}/key`)).toThrow(FopsSyntaxError);
    expect(() => parseFop('delete', 'bucket/%%%/key/eA==')).toThrow(/Base64/);
    expect(() => parseFop('rename', 'a/b')).toThrow(/unknown Fmgr operation/);
    expect(() => parseFop('delete', `bucket/${b64('b')}/key/${b64('k')}/force/MQ==`)).toThrow(/does not take force/);
    expect(() => parseFop('copy', `resource/${b64('nocolon')}/bucket/${b64('b')}`)).toThrow(/bucket:key/);
    expect(() => parseFop('setdeadline', `bucket/${b64('b')}/deadline/-2`)).toThrow(/deadline/);
    expect(() => buildFmgrBody([])).toThrow(/at least one/);
  });
  it('validates values before writing them (no injected pairs, no empty names)', () => {
    const fetch = { op: 'fetch', fetchURL: 'http://h/a', bucket: 'b' } as const;
    // An md5 with slashes would add a pair of its own: refused, whatever its case.
    expect(() => buildFop({ ...fetch, md5: 'abc/key/Zm9v' })).toThrow(/md5 must be 32 hex digits/);
    expect(() => buildFop({ ...fetch, md5: 'd41d8cd98f00b204e9800998ecf8427' })).toThrow(FopsSyntaxError);
    expect(buildFop({ ...fetch, md5: 'D41D8CD98F00B204E9800998ECF8427E' })).toMatch(
      /\/md5\/D41D8CD98F00B204E9800998ECF8427E$/,
    );
    expect(() => buildFop({ ...fetch, fetchURL: '' })).toThrow(/fetch needs a non-empty fetchURL/);
    expect(() => buildFop({ ...fetch, bucket: '' })).toThrow(/non-empty bucket/);
    expect(() => buildFop({ ...fetch, key: '' })).toThrow(/key is empty/);
    expect(() => buildFop({ op: 'delete', bucket: '', key: 'k' })).toThrow(/delete needs a non-empty bucket/);
    expect(() => buildFop({ op: 'delete', bucket: 'b', key: '' })).toThrow(/delete needs a non-empty key/);
    expect(() => buildFop({ op: 'copy', srcBucket: 'b', srcKey: '', bucket: 'c' })).toThrow(/source key/);
    expect(() => buildFop({ op: 'move', srcBucket: 'b:x', srcKey: 'k', bucket: 'c' })).toThrow(/cannot contain ':'/);
    expect(() => buildFop({ op: 'move', srcBucket: 'b', srcKey: 'k', bucket: 'c', prefix: '' })).toThrow(
      /prefix is empty/,
    );
    expect(() => buildFop({ op: 'deletePrefix', bucket: 'b', prefix: '' })).toThrow(/non-empty prefix/);
    expect(() => buildFop({ op: 'deletem3u8', bucket: 'b', key: 'k', deletets: 2 as 0 })).toThrow(
      /deletets must be 0 or 1/,
    );
    expect(() => buildFop({ op: 'setdeadline', bucket: 'b', deadline: 1.5 })).toThrow(/deadline/);
    expect(() => buildFop({ op: 'compress', bucket: 'b', keys: ['a', ''], saveAsBucket: 'b', saveAsKey: 'z' })).toThrow(
      /key \(number 2\)/,
    );
    expect(() => buildFop({ op: 'compress', bucket: 'b', keys: ['a'], saveAsBucket: 'b', saveAsKey: '' })).toThrow(
      /save-as key/,
    );
    expect(() => buildFmgrBody([{ op: 'delete', bucket: 'b', key: '' }])).toThrow(FopsSyntaxError);
  });
});

describe('code tables', () => {
  it('names every documented code and says undefined for the rest', () => {
    expect([0, 1, 3, 4, 5, 6].map(fmgrTaskState)).toEqual([
      'pending',
      'processing',
      'processing finished',
      'notifying',
      'notification failed',
      'notification succeeded',
    ]);
    expect(fmgrTaskState(2)).toBe('undefined code 2');
    expect(fmgrItemState('19')).toBe('failure, notification failed');
    expect(fmgrItemState(7)).toBe('undefined code 7');
    expect(fmgrNotificationState(2)).toBe('separate notification, some tasks failed');
    expect(vcaJobState(3)).toBe('analysis succeeded');
    expect(vcaNotifyState(2)).toBe('notification failed');
    expect(vcaNotifyState('x')).toBe('undefined code x');
  });
});
