/**
 * A minimal RFC 4180 reader for the tests, independent of the app's writer (tasks/csv.ts):
 * one UTF-8 byte order mark skipped, records end with CRLF, a field is either unquoted (no
 * comma, quote, CR or LF) or quoted with "" for a quote. Throws on anything else.
 */
export function readCsv(text: string): string[][] {
  const out: string[][] = [];
  let pos = text.startsWith('\uFEFF') ? 1 : 0;
  while (pos < text.length) {
    const rec: string[] = [];
    for (;;) {
      let field = '';
      if (text[pos] === '"') {
        pos++;
        for (;;) {
          const q = text.indexOf('"', pos);
          if (q < 0) throw new Error('unclosed quote');
          field += text.slice(pos, q);
          pos = q + 1;
          if (text[pos] === '"') {
            field += '"';
            pos++;
          } else break;
        }
      } else {
        const m = /^[^,"\r\n]*/.exec(text.slice(pos))![0];
        field = m;
        pos += m.length;
      }
      rec.push(field);
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text.startsWith('\r\n', pos)) {
        pos += 2;
        break;
      }
      throw new Error(`expected , or CRLF at ${pos}`);
    }
    out.push(rec);
  }
  return out;
}
