import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalTokenSigner, RemoteTokenProvider, tokenExpiring } from '../../../src-main/engine/tokens';
import { parseUploadToken, policyDeadlineMs, signUploadToken } from '../../../src-main/protocol/tokens';
import { ServiceError } from '../../../src-main/protocol/errors';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function serve(reply: (url: URL) => { status: number; body: string }): Promise<string> {
  server = createServer((req, res) => {
    const r = reply(new URL(req.url ?? '/', 'http://x'));
    res.writeHead(r.status);
    res.end(r.body);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/t`;
}

describe('LocalTokenSigner', () => {
  it('signs short-lived tokens scoped to bucket:key, with overwrite when asked', async () => {
    let now = 1_000_000;
    const s = new LocalTokenSigner('ak', 'sk', { ttlMs: 60_000, now: () => now, policy: { returnBody: 'k=$(key)' } });
    const t = await s.get({ bucket: 'b', key: 'a/b.txt', overwrite: true });
    const p = parseUploadToken(t.token);
    expect(p.accessKey).toBe('ak');
    expect(p.policy).toMatchObject({ scope: 'b:a/b.txt', overwrite: 1, returnBody: 'k=$(key)' });
    expect(policyDeadlineMs(p.policy)).toBe(now + 60_000);
    expect(t.token).toBe(signUploadToken('ak', 'sk', p.policy));
    // cached until half its life is gone, then re-signed
    now += 20_000;
    expect((await s.get({ bucket: 'b', key: 'a/b.txt', overwrite: true })).token).toBe(t.token);
    now += 20_000;
    expect((await s.get({ bucket: 'b', key: 'a/b.txt', overwrite: true })).token).not.toBe(t.token);
    expect((await s.get({ bucket: 'b', key: 'a/b.txt', overwrite: true }, { fresh: true })).deadlineMs).toBe(
      now + 60_000,
    );
  });

  it('needs both keys', () => {
    expect(() => new LocalTokenSigner('', 'sk')).toThrow(RangeError);
  });

  it('tokenExpiring honours the margin', () => {
    expect(tokenExpiring({ token: 'x', deadlineMs: 1000 }, 900, 50)).toBe(false);
    expect(tokenExpiring({ token: 'x', deadlineMs: 1000 }, 960, 50)).toBe(true);
    expect(tokenExpiring({ token: 'x', deadlineMs: undefined }, 1e15, 0)).toBe(false);
  });
});

describe('RemoteTokenProvider', () => {
  it('accepts JSON {token} or a bare token, reads the deadline from the policy, caches', async () => {
    let calls = 0;
    let bare = false;
    const url = await serve((u) => {
      calls++;
      const token = signUploadToken('ak', 'sk', {
        scope: `${u.searchParams.get('bucket')}:${u.searchParams.get('key')}`,
        deadline: 4_000_000_000_000,
      });
      return { status: 200, body: bare ? token : JSON.stringify({ token }) };
    });
    const p = new RemoteTokenProvider(url);
    const a = await p.get({ bucket: 'b', key: 'k', overwrite: false });
    expect(a.deadlineMs).toBe(4_000_000_000_000);
    await p.get({ bucket: 'b', key: 'k', overwrite: false });
    expect(calls).toBe(1);
    bare = true;
    const b = await p.get({ bucket: 'b', key: 'k2', overwrite: false });
    expect(parseUploadToken(b.token).policy.scope).toBe('b:k2');
  });

  it('a refusal or a non-token is a ServiceError saying so', async () => {
    let status = 403;
    const url = await serve(() => ({ status, body: status === 200 ? 'hello' : 'forbidden' }));
    const p = new RemoteTokenProvider(url);
    await expect(p.get({ bucket: 'b', key: 'k', overwrite: false })).rejects.toMatchObject({
      endpoint: 'token',
      status: 403,
    });
    status = 200;
    const e = await p.get({ bucket: 'b', key: 'k', overwrite: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceError);
    expect((e as ServiceError).message).toContain('did not return an upload token');
  });
});
