/**
 * URL-safe Base64 as the service uses it (protocol-notes "Encodings"): RFC 4648 §5
 * alphabet, `=` padding kept on encode, optional on decode.
 */

const URLSAFE_BASE64 = /^[A-Za-z0-9_-]*={0,2}$/;

export class Base64Error extends Error {
  override readonly name = 'Base64Error';
}

/** Encodes bytes or UTF-8 text; the result keeps its `=` padding. */
export function urlsafeB64Encode(input: Uint8Array | string): string {
  const buf =
    typeof input === 'string'
      ? Buffer.from(input, 'utf8')
      : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return buf.toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/**
 * Decodes URL-safe Base64, with or without padding. Throws Base64Error on any character
 * outside the alphabet, misplaced padding, or an impossible length, instead of silently
 * dropping characters the way Buffer.from(…, 'base64') does.
 */
export function urlsafeB64Decode(input: string): Buffer {
  if (!URLSAFE_BASE64.test(input)) {
    throw new Base64Error('not URL-safe Base64: only A-Z a-z 0-9 - _ and trailing = are allowed');
  }
  const body = input.replace(/=+$/, '');
  if (body.length % 4 === 1) throw new Base64Error('not URL-safe Base64: impossible length');
  const padded = input.includes('=') ? input : body + '='.repeat((4 - (body.length % 4)) % 4);
  if (padded.length % 4 !== 0) throw new Base64Error('not URL-safe Base64: wrong padding');
  return Buffer.from(body.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** Decodes to UTF-8 text; throws Base64Error when the bytes are not valid UTF-8. */
export function urlsafeB64DecodeText(input: string): string {
  const bytes = urlsafeB64Decode(input);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Base64Error('decoded bytes are not UTF-8 text');
  }
}

/** An entry: b64("bucket:key"), or b64("bucket") when there is no key. */
export function encodeEntry(bucket: string, key?: string): string {
  return urlsafeB64Encode(key === undefined ? bucket : `${bucket}:${key}`);
}

/** Splits a decoded entry at its first colon. */
export function decodeEntry(encoded: string): { bucket: string; key?: string } {
  const text = urlsafeB64DecodeText(encoded);
  const i = text.indexOf(':');
  return i < 0 ? { bucket: text } : { bucket: text.slice(0, i), key: text.slice(i + 1) };
}
