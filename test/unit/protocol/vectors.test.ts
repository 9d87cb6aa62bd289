import { describe, expect, it } from 'vitest';
import {
  urlsafeB64Decode,
  urlsafeB64Encode,
  urlsafeB64DecodeText,
  encodeEntry,
  decodeEntry,
  Base64Error,
} from '../../../src-main/protocol/base64';
import {
  signUploadToken,
  signManagementToken,
  parseUploadToken,
  signNotification,
  verifyNotification,
  TokenFormatError,
} from '../../../src-main/protocol/tokens';
import { EtagHasher, etagOfBuffer, ETAG_UNIT_BYTES } from '../../../src-main/protocol/etag';

describe('URL-safe Base64', () => {
  it('keeps padding on encode and uses - and _', () => {
    expect(urlsafeB64Encode(Buffer.from([0xfb, 0xff]))).toBe('-_8=');
    expect(urlsafeB64Encode('a')).toBe('YQ==');
  });
  it('decodes with or without padding', () => {
    expect(urlsafeB64DecodeText('YQ==')).toBe('a');
    expect(urlsafeB64DecodeText('YQ')).toBe('a');
    expect([...urlsafeB64Decode('-_8')]).toEqual([0xfb, 0xff]);
  });
  it('rejects characters outside the alphabet and impossible lengths', () => {
    expect(() => urlsafeB64Decode('a+b/')).toThrow(Base64Error);
    expect(() => urlsafeB64Decode('abcde')).toThrow(Base64Error);
    expect(() => urlsafeB64Decode('ab=c')).toThrow(Base64Error);
    expect(() => urlsafeB64Decode('YQ=')).toThrow(Base64Error);
  });
  it('encodes entries with and without key', () => {
    expect(encodeEntry('bucket', 'key')).toBe(urlsafeB64Encode('bucket:key'));
    expect(encodeEntry('bucket')).toBe(urlsafeB64Encode('bucket'));
    expect(decodeEntry(encodeEntry('b', 'a:b/c'))).toEqual({ bucket: 'b', key: 'a:b/c' });
  });
});

describe('tokens (protocol-notes test vectors)', () => {
  it('upload token', () => {
    const policy = '{"scope":"bucket:key","deadline":"1700000000000"}';
    const token = signUploadToken('ak', 'sk', policy);
    const [ak, sign, encoded] = token.split(':');
    expect(ak).toBe('ak');
    expect(sign).toBe('MjdkM2IwMDVjMjg5ODliYzI2NzM0MjU3ODQ3NDZhODM1MzJiYWUxOQ==');
    expect(encoded).toBe(urlsafeB64Encode(policy));
    expect(parseUploadToken(`UpToken ${token}`).policy).toEqual({ scope: 'bucket:key', deadline: '1700000000000' });
  });
  it('management token', () => {
    expect(signManagementToken('ak', 'sk', '/fmgr/fetch', 'fops=abc&notifyURL=xyz')).toBe(
      'ak:ZGNkNzU5NWE2YTRhNTQyMWJmYmYwMjY0ZGU1MTU5OTZkNGY3MWFhNA==',
    );
  });
  it('rejects malformed upload tokens with a clear error', () => {
    expect(() => parseUploadToken('nope')).toThrow(TokenFormatError);
    expect(() => parseUploadToken(`ak:s:${urlsafeB64Encode('not json')}`)).toThrow(/JSON/);
    expect(() => parseUploadToken(`ak:s:${urlsafeB64Encode('{"scope":"b"}')}`)).toThrow(/deadline/);
    expect(() => parseUploadToken('ak:s:***')).toThrow(/Base64/);
  });
  it('notification signatures verify and reject tampering', () => {
    const auth = signNotification('ak', 'sk', 'http://127.0.0.1:1/n?a=1', 'body');
    expect(verifyNotification(auth, 'ak', 'sk', 'http://127.0.0.1:1/n?a=1', 'body')).toBe(true);
    expect(verifyNotification(auth, 'ak', 'sk', 'http://127.0.0.1:1/n?a=1', 'bodY')).toBe(false);
    expect(verifyNotification(undefined, 'ak', 'sk', 'http://127.0.0.1:1/n', 'body')).toBe(false);
  });
});

describe('etag (protocol-notes test vectors)', () => {
  it.each([
    ['empty', Buffer.alloc(0), 'Fto5o-5ea0sNMlW_75VgGJCv2AcJ'],
    ['hello world', Buffer.from('hello world'), 'FiqubDXJT8-0FdvpX0CLnOke6Ebt'],
    ['4 MiB of zeros', Buffer.alloc(ETAG_UNIT_BYTES), 'FivMvS848VwT631aif2dhfWV4jvD'],
    ['4 MiB + 1 zeros', Buffer.alloc(ETAG_UNIT_BYTES + 1), 'lhCFgki5yzon0rjN9uJusf6qtsF6'],
  ])('%s', (_name, data, etag) => {
    expect(etagOfBuffer(data)).toBe(etag);
  });
  it('is the same whatever the piece sizes', () => {
    const data = Buffer.alloc(ETAG_UNIT_BYTES * 2 + 12345, 7);
    const h = new EtagHasher();
    for (let i = 0; i < data.length; i += 999_999) h.update(data.subarray(i, i + 999_999));
    expect(h.digest()).toBe(etagOfBuffer(data));
  });
});
