import {
  parseScope,
  parseUploadToken,
  policyDeadlineMs,
  signHexB64,
  stripUpTokenPrefix,
  TokenFormatError,
  verifySign,
  type UploadPolicy,
} from '../protocol/tokens';
import type { EmulatorConfig } from './contracts';
import { HttpError } from './http-util';

/** What a verified upload token grants. */
export interface UploadGrant {
  policy: UploadPolicy;
  bucket: string;
  /** The key the scope names, when it names one (it wins over header and path). */
  scopeKey?: string;
  deadlineMs: number;
  overwrite: boolean;
  /** 0 = no limit. */
  fsizeLimit: number;
}

/**
 * Checks the Authorization header of mkblk, bput and mkfile (bare token or `UpToken `
 * prefix): form, access key and signature first (401, saying which), then the policy's
 * content (400 when a correctly signed policy is malformed: a new token would not help),
 * then the deadline against the emulator's clock (401, expired).
 */
export function checkUploadToken(header: string | undefined, config: EmulatorConfig, nowMs: number): UploadGrant {
  if (!header || header.trim() === '')
    throw new HttpError(401, 'Authorization header with an upload token is required');
  const token = stripUpTokenPrefix(header);
  const parts = token.split(':');
  if (parts.length !== 3 || parts.some((p) => p === ''))
    throw new HttpError(401, 'bad token: an upload token is AK:sign:encodedPolicy');
  const [accessKey, sign, encodedPolicy] = parts as [string, string, string];
  if (accessKey !== config.accessKey) throw new HttpError(401, 'bad token: unknown access key');
  if (!verifySign(signHexB64(config.secretKey, encodedPolicy), sign))
    throw new HttpError(401, 'bad token: signature does not match the policy (wrong secret key?)');
  let policy: UploadPolicy;
  try {
    policy = parseUploadToken(token).policy;
  } catch (e) {
    if (e instanceof TokenFormatError) throw new HttpError(400, `invalid upload policy: ${e.message}`);
    throw e;
  }
  const problem = policyProblem(policy);
  if (problem) throw new HttpError(400, `invalid upload policy: ${problem}`);
  const deadlineMs = policyDeadlineMs(policy)!;
  if (deadlineMs <= nowMs) {
    throw new HttpError(
      401,
      `token expired: its deadline ${new Date(deadlineMs).toISOString()} has passed (deadline is Unix time in milliseconds); get a new token`,
    );
  }
  const { bucket, key } = parseScope(policy.scope);
  if (bucket === '') throw new HttpError(400, 'invalid upload policy: scope has no bucket');
  return {
    policy,
    bucket,
    scopeKey: key === undefined || key === '' ? undefined : key,
    deadlineMs,
    overwrite: String(policy.overwrite ?? 0) === '1',
    fsizeLimit: Number(policy.fsizeLimit ?? 0),
  };
}

function policyProblem(p: UploadPolicy): string | undefined {
  const raw = p as unknown as Record<string, unknown>;
  if (raw.overwrite !== undefined && !['0', '1'].includes(String(raw.overwrite))) return 'overwrite must be 0 or 1';
  if (
    raw.fsizeLimit !== undefined &&
    !(typeof raw.fsizeLimit === 'number' && Number.isSafeInteger(raw.fsizeLimit) && raw.fsizeLimit >= 0)
  ) {
    return 'fsizeLimit must be a whole number of bytes, 0 or more';
  }
  for (const name of [
    'returnBody',
    'callbackUrl',
    'callbackBody',
    'persistentOps',
    'persistentNotifyUrl',
    'returnUrl',
  ]) {
    if (raw[name] !== undefined && typeof raw[name] !== 'string') return `${name} must be a string`;
  }
  if (raw.separate !== undefined && !['0', '1'].includes(String(raw.separate))) return 'separate must be 0 or 1';
  for (const name of ['callbackUrl', 'persistentNotifyUrl']) {
    const v = raw[name];
    if (typeof v === 'string' && v !== '' && !isHttpUrl(v)) return `${name} must be an http:// or https:// URL`;
  }
  return undefined;
}

export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
