import { describe, expect, it } from 'vitest';
import {
  accountSecretsInUrls,
  publicAccount,
  publicTokenUrl,
  publicUrl,
  secretSummary,
} from '../../../src-main/service/account-public';
import type { AccountRecord } from '../../../src-main/store/account-repo';

const base: AccountRecord = {
  id: 3,
  name: 'Remote',
  uploadUrl: 'https://up.example',
  mgrUrl: null,
  downloadDomain: null,
  accessKey: 'AK',
  secretRef: null,
  tokenUrl: 'https://user:p4ssw0rd@tokens.example/issue?sig=s3cr3t#frag',
  secretChangedAt: null,
};

describe('publicAccount: what may leave the main process about an account', () => {
  it('drops the token URL user info, query and fragment, URL passwords, and the secret reference', () => {
    const a: AccountRecord = {
      ...base,
      uploadUrl: 'https://u:pw-up@up.example/base?region=1',
      secretRef: 'file:/home/u/.secret',
      secretChangedAt: Date.UTC(2026, 10, 27, 8),
    };
    const p = publicAccount(a, { mode: 'url', url: 'http://pu:proxy-pw@127.0.0.1:3128' });
    expect(p).toEqual({
      id: 3,
      name: 'Remote',
      uploadUrl: 'https://up.example/base?region=1',
      mgrUrl: null,
      downloadDomain: null,
      accessKey: 'AK',
      tokenUrl: 'https://tokens.example/issue',
      hasSecret: true,
      secret: 'stored · changed 2026-11-27',
      proxy: { mode: 'url', url: 'http://127.0.0.1:3128/' },
    });
    const text = JSON.stringify(p);
    for (const leak of ['p4ssw0rd', 's3cr3t', 'frag', 'pw-up', 'proxy-pw', 'file:']) expect(text).not.toContain(leak);
  });

  it('leaves a URL with nothing to hide as it was, and says so for one that is not a URL', () => {
    expect(publicUrl('http://127.0.0.1:9')).toBe('http://127.0.0.1:9');
    expect(publicTokenUrl('https://t.example/x')).toBe('https://t.example/x');
    expect(publicTokenUrl('not a url')).toBe('[not a URL]');
    expect(secretSummary(null)).toBe('stored');
  });

  it('lists what the redactor must hide of the URLs: password, user, query values (raw and decoded), the whole token URL', () => {
    const s = accountSecretsInUrls(
      { ...base, tokenUrl: 'https://user:p4ss%40w0rd@tokens.example/issue?sig=s3cr3t&n=a%2Fb%2Bc' },
      { mode: 'url', url: 'http://pu:proxy-pw@127.0.0.1:3128' },
    );
    for (const want of ['p4ss%40w0rd', 'p4ss@w0rd', 'user', 's3cr3t', 'a/b+c', 'proxy-pw']) expect(s).toContain(want);
    expect(s).toContain('https://user:p4ss%40w0rd@tokens.example/issue?sig=s3cr3t&n=a%2Fb%2Bc');
  });
});
