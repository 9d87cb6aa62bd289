import { describe, expect, it } from 'vitest';
import { LocalTokenSigner } from '../../../src-main/engine/tokens';
import { UploadToken, tokenHasCallback } from '../../../src-main/engine/upload-token';
import { signUploadToken } from '../../../src-main/protocol/tokens';

const never = new AbortController().signal;

describe('UploadToken: which token a refusal counts against', () => {
  it('a 401 of a request that used an older token is not a "fresh token refused"', async () => {
    let now = 1_000_000;
    const t = new UploadToken(new LocalTokenSigner('ak', 'sk', { now: () => now }), 'b', 'k', false, () => now, 1000);
    const old = await t.current(never);
    // Two requests in flight with `old`; the first refusal refreshes.
    await t.refresh(old, never);
    const fresh = await t.current(never);
    expect(fresh).not.toBe(old);
    expect(t.refusedFresh(fresh)).toBe(true);
    // The second request's refusal (it used `old`): not final, and no second provider call.
    expect(t.refusedFresh(old)).toBe(false);
    await t.refresh(old, never);
    expect(await t.current(never)).toBe(fresh);
    // Once a call accepted the fresh token, a later refusal of it is a new event (refresh again).
    t.accepted(fresh);
    expect(t.refusedFresh(fresh)).toBe(false);
    now += 10;
    await t.refresh(fresh, never);
    expect(await t.current(never)).not.toBe(fresh);
  });

  it('concurrent refreshes share one provider call', async () => {
    let calls = 0;
    const signer = new LocalTokenSigner('ak', 'sk');
    const provider = { get: async (...a: Parameters<LocalTokenSigner['get']>) => (calls++, signer.get(...a)) };
    const t = new UploadToken(provider, 'b', 'k', false, Date.now, 1000);
    const old = await t.current(never);
    await Promise.all([t.refresh(old, never), t.refresh(old, never), t.refresh(old, never)]);
    expect(calls).toBe(2);
  });
});

describe('tokenHasCallback', () => {
  it('reads callbackUrl from the policy; unreadable tokens count as none', () => {
    expect(
      tokenHasCallback(signUploadToken('ak', 'sk', { scope: 'b', deadline: 1, callbackUrl: 'http://127.0.0.1/cb' })),
    ).toBe(true);
    expect(tokenHasCallback(signUploadToken('ak', 'sk', { scope: 'b', deadline: 1 }))).toBe(false);
    expect(tokenHasCallback('not-a-token')).toBe(false);
  });
});
