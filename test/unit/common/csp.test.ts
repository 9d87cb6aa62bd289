import { describe, expect, it } from 'vitest';
import { accountMediaOrigins, downloadOrigin, pageCsp } from '../../../src-main/common/csp';
import { APP_CSP } from '../../../src-main/shared/csp';

/** The page's CSP: media only from 'self' and the origins of the accounts' download domains. */
describe('pageCsp', () => {
  const directive = (csp: string, name: string) =>
    csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith(`${name} `));

  it('keeps every directive of APP_CSP and adds media-src with the given origins, each once, sorted', () => {
    const csp = pageCsp(['http://127.0.0.1:41234', 'https://cdn.example.com', 'http://127.0.0.1:41234']);
    expect(csp.startsWith(`${APP_CSP}; `)).toBe(true);
    expect(directive(csp, 'media-src')).toBe("media-src 'self' http://127.0.0.1:41234 https://cdn.example.com");
    expect(directive(pageCsp([]), 'media-src')).toBe("media-src 'self'");
    expect(directive(APP_CSP, 'media-src')).toBeUndefined();
  });

  it('lists origins only: no path, query, user info, wildcard or CSP syntax can get in', () => {
    const csp = pageCsp([
      'http://a.example.com; script-src *',
      '*',
      'https://x.example.com/path',
      "'unsafe-inline'",
      'data:',
      'http://user:secret@h.example.com',
    ]);
    expect(directive(csp, 'media-src')).toBe("media-src 'self'");
    expect(directive(csp, 'script-src')).toBe("script-src 'self'");
  });

  it('reads a download domain as the access URL does: http assumed, path and credentials dropped', () => {
    expect(downloadOrigin('http://127.0.0.1:5000/dl/local')).toBe('http://127.0.0.1:5000');
    expect(downloadOrigin('cdn.example.com/videos')).toBe('http://cdn.example.com');
    expect(downloadOrigin('https://user:secret@cdn.example.com:8443/x?token=t')).toBe('https://cdn.example.com:8443');
    expect(downloadOrigin('ftp://files.example.com')).toBeNull();
    expect(downloadOrigin('  ')).toBeNull();
    expect(downloadOrigin('http://[::1]:9/x')).toBe('http://[::1]:9');
    expect(
      accountMediaOrigins([
        { downloadDomain: null },
        { downloadDomain: 'http://127.0.0.1:5000/dl/local' },
        { downloadDomain: 'not a url at all' },
      ]),
    ).toEqual(['http://127.0.0.1:5000']);
  });
});
