import { randomBytes } from 'node:crypto';

/** A multipart/form-data body: the text fields, then the file part named `file`. */
export function multipartBody(
  fields: ReadonlyArray<readonly [string, string]>,
  fileName: string,
  data: Uint8Array,
): { contentType: string; body: Buffer } {
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
    body: Buffer.concat([Buffer.from(head, 'utf8'), data, Buffer.from(tail, 'utf8')]),
  };
}
