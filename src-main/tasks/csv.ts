/**
 * RFC 4180 CSV: fields separated by commas, records by CRLF; a field containing a comma, a
 * double quote, CR or LF is enclosed in double quotes with inner quotes doubled. The
 * writer quotes only when needed; the parser accepts CRLF or LF and quoted fields spanning
 * lines, and throws CsvSyntaxError on a stray quote.
 *
 * Spreadsheet safety (OWASP "CSV injection"): a text cell starting with = + - @, a tab or a
 * CR would be run as a formula by Excel or LibreOffice, so the writer puts an apostrophe
 * before it ('=1+1 is shown as text). Numbers are written as numbers. The change is one-way:
 * parseCsv gives the cell with its apostrophe. Documents start with a UTF-8 byte order mark
 * (UTF8_BOM) so Excel reads non-ASCII text as UTF-8; parseCsv skips one.
 */
export const UTF8_BOM = '\uFEFF';

export class CsvSyntaxError extends Error {
  override readonly name = 'CsvSyntaxError';
}

/** A text cell that a spreadsheet would evaluate as a formula gets a leading apostrophe. */
export function neutraliseFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

export function csvField(value: string | number): string {
  const s = typeof value === 'number' ? String(value) : neutraliseFormula(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A whole document: the BOM, the header record, then one record per row; each ends with CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  return UTF8_BOM + [header, ...rows].map((r) => r.map(csvField).join(',') + '\r\n').join('');
}

export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = text.startsWith(UTF8_BOM) ? 1 : 0;
  let quoted = false;
  let fieldStarted = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n')
          throw new CsvSyntaxError(`text after a closing quote at offset ${i}`);
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"') {
      if (fieldStarted) throw new CsvSyntaxError(`quote inside an unquoted field at offset ${i}`);
      quoted = true;
      fieldStarted = true;
      i++;
    } else if (ch === ',') {
      record.push(field);
      field = '';
      fieldStarted = false;
      i++;
    } else if (ch === '\r' || ch === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      fieldStarted = false;
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += ch;
      fieldStarted = true;
      i++;
    }
  }
  if (quoted) throw new CsvSyntaxError('a quoted field is not closed');
  if (fieldStarted || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}
