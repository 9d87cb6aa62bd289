import { randomBytes } from 'node:crypto';

/**
 * A multipart/form-data body as its three parts: the text fields and the file part's head,
 * the file's bytes (the caller's buffer itself, not a copy), and the closing boundary.
 * Sent as they are (http.ts writes them in one go), a form upload's file is not copied into
 * a second buffer of its size.
 */
export function multipartParts(
  fields: ReadonlyArray<readonly [string, string]>,
  fileName: string,
  data: Uint8Array,
): { contentType: string; parts: [Buffer, Uint8Array, Buffer] } {
  const boundary = `----blocklift${randomBytes(12).toString('hex')}`;
  // Quotes, CR and LF cannot appear inside a quoted name; percent-encode them as browsers do.
  const quoted = (s: string) => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  let head = '';
  for (const [name, value] of fields)
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`;
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(fileName)}"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  const tail = `\r\n--${boundary}--\r\n`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    parts: [Buffer.from(head, 'utf8'), data, Buffer.from(tail, 'utf8')],
  };
}

/** A multipart/form-data body in one buffer: the text fields, then the file part named `file`. */
export function multipartBody(
  fields: ReadonlyArray<readonly [string, string]>,
  fileName: string,
  data: Uint8Array,
): { contentType: string; body: Buffer } {
  const { contentType, parts } = multipartParts(fields, fileName, data);
  return { contentType, body: Buffer.concat(parts) };
}
