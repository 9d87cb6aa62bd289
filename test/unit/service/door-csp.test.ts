import { describe, expect, it } from 'vitest';
import { accountMediaOrigins, doorCsp, pageCsp } from '../../../src-main/service/door-csp';
import type { AccountView, Result } from '../../../src-main/shared/contract';
import { APP_CSP } from '../../../src-main/shared/csp';
import { downloadOrigin, objectAccessUrl } from '../../../src-main/tasks/access-url';

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
    // The origin is the access URL's own (one reading of a download domain: tasks/access-url.ts).
    for (const domain of ['cdn.example.com/videos', 'https://u:p@cdn.example.com:8443/x', 'http://[::1]:9/x'])
      expect(downloadOrigin(domain)).toBe(new URL(objectAccessUrl(domain, 'a/b.mp4')).origin);
    expect(
      accountMediaOrigins([
        { downloadDomain: null },
        { downloadDomain: 'http://127.0.0.1:5000/dl/local' },
        { downloadDomain: 'not a url at all' },
      ]),
    ).toEqual(['http://127.0.0.1:5000']);
  });
});

/** What either door sets on a reply (headless/server.ts, electron/app-protocol.ts). */
describe('doorCsp', () => {
  it("a page: the accounts' origins, looked up then; any other reply: APP_CSP with no lookup; accounts that cannot be read: 'self' only", async () => {
    let lookups = 0;
    const backend = (answer: Result<AccountView[]> | Error) => ({
      accounts: {
        list: async () => {
          lookups++;
          if (answer instanceof Error) throw answer;
          return answer;
        },
      },
    });
    const two = backend({
      ok: true,
      value: [
        { downloadDomain: 'http://127.0.0.1:5000/dl/local' },
        { downloadDomain: 'cdn.example.com' },
      ] as AccountView[],
    });
    expect(await doorCsp(two, true)).toBe(`${APP_CSP}; media-src 'self' http://127.0.0.1:5000 http://cdn.example.com`);
    expect(lookups).toBe(1);
    expect(await doorCsp(two, false)).toBe(APP_CSP);
    expect(lookups).toBe(1);
    expect(await doorCsp(backend(new Error('closed')), true)).toBe(`${APP_CSP}; media-src 'self'`);
    const refused = { ok: false, error: { code: 'internal', message: 'no', params: {} } } as const;
    expect(await doorCsp(backend(refused), true)).toBe(`${APP_CSP}; media-src 'self'`);
  });
});
