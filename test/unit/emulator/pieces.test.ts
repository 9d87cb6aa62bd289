import { describe, expect, it } from 'vitest';
import { batchTag, CtxError, CtxSigner } from '../../../src-main/emulator/ctx';
import { parseRange } from '../../../src-main/emulator/download';
import { FaultConfigError, FaultInjector, parseFaultConfig } from '../../../src-main/emulator/faults';
import { HttpError } from '../../../src-main/emulator/http-util';
import {
  mkfileReply,
  renderCallbackBody,
  renderTemplate,
  returnBodyProblem,
} from '../../../src-main/emulator/return-body';
import { checkUploadToken } from '../../../src-main/emulator/upload-auth';
import { signUploadToken, type UploadPolicy } from '../../../src-main/protocol/tokens';

describe('ctx signer', () => {
  const signer = new CtxSigner(Buffer.alloc(32, 7));
  const claims = {
    blockId: '00112233445566778899aabbccddeeff',
    blockOrder: 3,
    offset: 4 * 1024 * 1024 - 1,
    batch: 'b-1',
  };

  it('round-trips its claims and is path-safe', () => {
    const ctx = signer.sign(claims);
    expect(ctx).toMatch(/^[A-Za-z0-9_-]+$/);
    const back = signer.verify(ctx);
    expect(back).toMatchObject({ blockId: claims.blockId, blockOrder: 3, offset: claims.offset });
    expect(back.batchTag.equals(batchTag('b-1'))).toBe(true);
    expect(back.batchTag.equals(batchTag('b-2'))).toBe(false);
  });

  it('refuses a ctx signed with another secret, a modified one, and junk, by code', () => {
    const ctx = signer.sign(claims);
    const other = new CtxSigner(Buffer.alloc(32, 8));
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e instanceof CtxError ? e.code : 'other';
      }
      return 'none';
    };
    expect(code(() => other.verify(ctx))).toBe('forged');
    const raw = Buffer.from(ctx, 'base64url');
    raw[20] = raw[20]! ^ 1;
    expect(code(() => signer.verify(raw.toString('base64url')))).toBe('forged');
    expect(code(() => signer.verify('abc'))).toBe('malformed');
    expect(code(() => signer.verify('a/b'))).toBe('malformed');
    expect(code(() => signer.verify(''))).toBe('malformed');
  });
});

describe('parseRange', () => {
  it.each([
    [undefined, 100, undefined],
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=-500', 100, { start: 0, end: 99 }],
    ['bytes=50-500', 100, { start: 50, end: 99 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-0', 0, 'unsatisfiable'],
    ['bytes=9-3', 100, undefined],
    ['bytes=0-1,5-6', 100, undefined],
    ['items=0-1', 100, undefined],
  ] as const)('%s of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('fault injector', () => {
  const cfg = { seed: 9, errors: [{ rate: 0.5, status: 503 }] };
  const run = (inj: FaultInjector, n: number) => Array.from({ length: n }, () => inj.errorFor('bput') ?? 0);

  it('is deterministic per seed and per endpoint counter', () => {
    const a = run(new FaultInjector(cfg), 200);
    expect(run(new FaultInjector(cfg), 200)).toEqual(a);
    expect(run(new FaultInjector({ ...cfg, seed: 10 }), 200)).not.toEqual(a);
    // Calls of another endpoint in between do not shift this endpoint's sequence.
    const inj = new FaultInjector(cfg);
    const mixed = Array.from({ length: 200 }, () => (inj.errorFor('mkblk'), inj.errorFor('bput') ?? 0));
    expect(mixed).toEqual(a);
  });

  it('hits about the configured rate, never for endpoints outside the rule', () => {
    const inj = new FaultInjector({ errors: [{ endpoints: ['mkfile'], rate: 0.25 }] });
    const hits = Array.from({ length: 4000 }, () => inj.errorFor('mkfile')).filter((s) => s === 503).length;
    expect(hits).toBeGreaterThan(800);
    expect(hits).toBeLessThan(1200);
    expect(Array.from({ length: 100 }, () => inj.errorFor('bput')).every((s) => s === undefined)).toBe(true);
  });

  it('set() restarts the sequence; ctx expiry counts uses', () => {
    const inj = new FaultInjector(cfg);
    const a = run(inj, 20);
    inj.set(cfg);
    expect(run(inj, 20)).toEqual(a);
    inj.set({ ctxExpiry: { afterUses: 3 } });
    expect([1, 2, 3, 4, 5, 6].map(() => inj.ctxExpired())).toEqual([false, false, true, false, false, true]);
    expect(inj.active).toBe(true);
    inj.set({});
    expect(inj.active).toBe(false);
  });

  it('validation names the bad field', () => {
    expect(() => parseFaultConfig({ errors: [{ rate: 1.5 }] })).toThrow(FaultConfigError);
    expect(() => parseFaultConfig({ reset: { rate: 0.1, endpoints: ['nowhere'] } })).toThrow(/reset\.endpoints/);
    expect(() => parseFaultConfig({ latency: 5 })).toThrow(/latency/);
    expect(() => parseFaultConfig('x')).toThrow(FaultConfigError);
    expect(parseFaultConfig({ bandwidthBytesPerSec: 1000 })).toEqual({ bandwidthBytesPerSec: 1000 });
  });
});

describe('returnBody and callbackBody', () => {
  const vars = { key: 'a/b.txt', hash: 'Fh', fsize: '12', fname: 'b.txt', 'x:who': 'me & you' };

  it('renders variables; unknown ones become empty', () => {
    expect(renderTemplate('$(key)|$(fsize)|$(x:who)|$(x:none)|$(nope', vars)).toBe('a/b.txt|12|me & you||$(nope');
  });

  it('a query-string returnBody gives its pairs as strings, then key and hash', () => {
    const r = mkfileReply('size=$(fsize)&key=$(fname)&who=$(x:who)', vars, 'a/b.txt', 'Fh');
    expect(Object.entries(r)).toEqual([
      ['size', '12'],
      ['who', 'me & you'],
      ['key', 'a/b.txt'],
      ['hash', 'Fh'],
    ]);
    expect(mkfileReply(undefined, vars, 'k', 'h', 'pid-1')).toEqual({ key: 'k', hash: 'h', persistentId: 'pid-1' });
  });

  it('a JSON returnBody template works too, and a broken one is reported', () => {
    expect(mkfileReply('{"n":$(fname),"s":"$(fsize)"}', vars, 'k', 'h')).toEqual({
      n: 'b.txt',
      s: '12',
      key: 'k',
      hash: 'h',
    });
    expect(returnBodyProblem('{"n":$(fname)')).toMatch(/JSON/);
    expect(returnBodyProblem('a=$(key)')).toBeUndefined();
  });

  it('the callback body is form-encoded after rendering', () => {
    expect(renderCallbackBody('who=$(x:who)&k=$(key)', vars)).toBe('who=me+%26+you&k=a%2Fb.txt');
    expect(renderCallbackBody(undefined, vars)).toBe('key=a%2Fb.txt&hash=Fh');
  });
});

describe('checkUploadToken', () => {
  const config = { accessKey: 'ak', secretKey: 'sk', buckets: ['b'], downloadBaseUrl: '' };
  const now = 1_700_000_000_000;
  const status = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e instanceof HttpError ? e.status : -1;
    }
    return 200;
  };

  it('accepts the protocol-notes vector before its deadline and refuses it after', () => {
    const token =
      'ak:MjdkM2IwMDVjMjg5ODliYzI2NzM0MjU3ODQ3NDZhODM1MzJiYWUxOQ==:eyJzY29wZSI6ImJ1Y2tldDprZXkiLCJkZWFkbGluZSI6IjE3MDAwMDAwMDAwMDAifQ==';
    expect(token.split(':')[2]).toBe(
      Buffer.from('{"scope":"bucket:key","deadline":"1700000000000"}').toString('base64'),
    );
    const grant = checkUploadToken(token, config, now - 1);
    expect(grant).toMatchObject({
      bucket: 'bucket',
      scopeKey: 'key',
      deadlineMs: now,
      overwrite: false,
      fsizeLimit: 0,
    });
    expect(status(() => checkUploadToken(token, config, now))).toBe(401);
    expect(status(() => checkUploadToken(`UpToken ${token}`, config, now - 1))).toBe(200);
  });

  it('401 for form, key and signature problems; 400 for a signed but invalid policy', () => {
    const ok = (p: Record<string, unknown> | string) => signUploadToken('ak', 'sk', p as UploadPolicy | string);
    expect(status(() => checkUploadToken(undefined, config, now))).toBe(401);
    expect(status(() => checkUploadToken('a:b', config, now))).toBe(401);
    expect(
      status(() => checkUploadToken(signUploadToken('x', 'sk', { scope: 'b', deadline: now + 1 }), config, now)),
    ).toBe(401);
    expect(
      status(() => checkUploadToken(signUploadToken('ak', 'x', { scope: 'b', deadline: now + 1 }), config, now)),
    ).toBe(401);
    expect(status(() => checkUploadToken(ok('{oops'), config, now))).toBe(400);
    expect(status(() => checkUploadToken(ok({ scope: 'b' }), config, now))).toBe(400);
    expect(status(() => checkUploadToken(ok({ scope: 'b', deadline: now + 1, fsizeLimit: -1 }), config, now))).toBe(
      400,
    );
    expect(
      status(() => checkUploadToken(ok({ scope: 'b', deadline: now + 1, callbackUrl: 'ftp://x' }), config, now)),
    ).toBe(400);
    expect(
      checkUploadToken(ok({ scope: 'b', deadline: String(now + 1), overwrite: 1, fsizeLimit: 10 }), config, now),
    ).toMatchObject({ overwrite: true, fsizeLimit: 10 });
  });
});
