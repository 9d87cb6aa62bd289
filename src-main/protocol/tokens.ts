import { createHmac, timingSafeEqual } from 'node:crypto';
import { Base64Error, urlsafeB64Decode, urlsafeB64DecodeText, urlsafeB64Encode } from './base64';

/**
 * Upload policy members (protocol-notes "Upload token"). `deadline` is Unix time in
 * milliseconds; the service accepts a number or a numeric string.
 */
export interface UploadPolicy {
  scope: string;
  deadline: number | string;
  overwrite?: 0 | 1;
  fsizeLimit?: number;
  returnBody?: string;
  returnUrl?: string;
  callbackUrl?: string;
  callbackBody?: string;
  persistentOps?: string;
  persistentNotifyUrl?: string;
  separate?: 0 | 1 | '0' | '1';
  instant?: unknown;
}

/** b64(lowercaseHex(HMAC-SHA1(sk, message))): the service's signature form. */
export function signHexB64(secretKey: string, message: string | Uint8Array): string {
  const hex = createHmac('sha1', secretKey).update(message).digest('hex');
  return urlsafeB64Encode(hex);
}

/**
 * Signs an upload token. `policy` is either the policy object (serialized with
 * JSON.stringify) or the exact policy text to encode.
 */
export function signUploadToken(accessKey: string, secretKey: string, policy: UploadPolicy | string): string {
  const text = typeof policy === 'string' ? policy : JSON.stringify(policy);
  const encodedPolicy = urlsafeB64Encode(text);
  return `${accessKey}:${signHexB64(secretKey, encodedPolicy)}:${encodedPolicy}`;
}

export class TokenFormatError extends Error {
  override readonly name = 'TokenFormatError';
}

export interface ParsedUploadToken {
  accessKey: string;
  sign: string;
  encodedPolicy: string;
  policy: UploadPolicy;
}

/** Strips the optional `UpToken ` prefix some official clients send. */
export function stripUpTokenPrefix(header: string): string {
  const trimmed = header.trim();
  return /^UpToken\s+/i.test(trimmed) ? trimmed.replace(/^UpToken\s+/i, '') : trimmed;
}

/**
 * Parses an upload token (with or without the `UpToken ` prefix). Checks its form and the
 * policy's JSON and required members; does not check the signature (see verifySign).
 */
export function parseUploadToken(header: string): ParsedUploadToken {
  const token = stripUpTokenPrefix(header);
  const parts = token.split(':');
  if (parts.length !== 3 || parts.some((p) => p.length === 0)) {
    throw new TokenFormatError('upload token must be AK:sign:encodedPolicy');
  }
  const [accessKey, sign, encodedPolicy] = parts as [string, string, string];
  let text: string;
  try {
    text = urlsafeB64DecodeText(encodedPolicy);
  } catch (e) {
    throw new TokenFormatError(`upload token policy is not URL-safe Base64: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new TokenFormatError('upload token policy is not valid JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new TokenFormatError('upload token policy must be a JSON object');
  }
  const policy = raw as Record<string, unknown>;
  if (typeof policy.scope !== 'string' || policy.scope.length === 0) {
    throw new TokenFormatError('upload token policy has no scope');
  }
  if (policyDeadlineMs(policy as unknown as UploadPolicy) === undefined) {
    throw new TokenFormatError('upload token policy has no valid deadline (Unix time in milliseconds)');
  }
  return { accessKey, sign, encodedPolicy, policy: policy as unknown as UploadPolicy };
}

/** The policy's deadline in ms, or undefined when it is missing or not a number. */
export function policyDeadlineMs(policy: UploadPolicy): number | undefined {
  const d = policy.deadline;
  const n = typeof d === 'number' ? d : typeof d === 'string' && /^\d+$/.test(d) ? Number(d) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** Splits a scope into bucket and optional key (at the first colon). */
export function parseScope(scope: string): { bucket: string; key?: string } {
  const i = scope.indexOf(':');
  return i < 0 ? { bucket: scope } : { bucket: scope.slice(0, i), key: scope.slice(i + 1) };
}

/** Constant-time comparison of a received sign with the expected one. */
export function verifySign(expected: string, received: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(received);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Management token: AK:b64(hex(HMAC-SHA1(SK, path[?query] + "\n" + body))). */
export function signManagementToken(
  accessKey: string,
  secretKey: string,
  pathWithQuery: string,
  body: string | Uint8Array = '',
): string {
  const bodyBuf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const message = Buffer.concat([Buffer.from(`${pathWithQuery}\n`, 'utf8'), bodyBuf]);
  return `${accessKey}:${signHexB64(secretKey, message)}`;
}

/** Splits a management token (AK:sign). */
export function parseManagementToken(header: string): { accessKey: string; sign: string } {
  const parts = header.trim().split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    throw new TokenFormatError('management token must be AK:sign');
  }
  return { accessKey: parts[0], sign: parts[1] };
}

/**
 * Authorization of a notification or callback sent by the service:
 * AK:b64(hex(HMAC-SHA1(SK, fullUrlWithQuery + "\n" + b64(body)))).
 */
export function signNotification(
  accessKey: string,
  secretKey: string,
  fullUrl: string,
  body: Uint8Array | string,
): string {
  const message = `${fullUrl}\n${urlsafeB64Encode(body)}`;
  return `${accessKey}:${signHexB64(secretKey, message)}`;
}

/** True when `authorization` is a valid notification signature for this url and body. */
export function verifyNotification(
  authorization: string | undefined,
  accessKey: string,
  secretKey: string,
  fullUrl: string,
  body: Uint8Array | string,
): boolean {
  if (!authorization) return false;
  return verifySign(signNotification(accessKey, secretKey, fullUrl, body), authorization.trim());
}

export { Base64Error, urlsafeB64Decode };
