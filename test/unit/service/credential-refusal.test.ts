import { describe, expect, it } from 'vitest';
import { TOKEN_EXPIRED_HINT } from '../../../src-main/engine/retry';
import { isCredentialRefusal } from '../../../src-main/service/credential-holds';

/** A transfer's lastError as the engine records it: a code and words. */
const refusal = (e: { code: string; message: string } | null) => isCredentialRefusal(e);

describe('isCredentialRefusal branches on the failure code, never on its words', () => {
  it('holds an account for refused credentials, not for an expired token (the clock is wrong, not the keys)', () => {
    expect(refusal({ code: 'token-rejected', message: 'check the access key' })).toBe(true);
    expect(refusal({ code: 'forbidden', message: '' })).toBe(true);
    expect(refusal({ code: 'token-expired', message: `${TOKEN_EXPIRED_HINT} (mkblk 401)` })).toBe(false);
    // Words that happen to start like the clock's hint do not change what the code says.
    expect(refusal({ code: 'token-rejected', message: `${TOKEN_EXPIRED_HINT} (quoted)` })).toBe(true);
    expect(refusal(null)).toBe(false);
  });
});
