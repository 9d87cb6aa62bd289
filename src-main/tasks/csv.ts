/**
 * RFC 4180 CSV: fields separated by commas, records by CRLF; a field containing a comma, a
 * double quote, CR or LF is enclosed in double quotes with inner quotes doubled. The
 * writer quotes only when needed. The app only writes CSV (the VCA export).
 *
 * Spreadsheet safety (OWASP "CSV injection"): a text cell starting with = + - @, a tab or a
 * CR would be run as a formula by Excel or LibreOffice, so the writer puts an apostrophe
 * before it ('=1+1 is shown as text). Numbers are written as numbers. The change is one-way:
 * a reader gets the cell with its apostrophe. Documents start with a UTF-8 byte order mark
 * (UTF8_BOM) so Excel reads non-ASCII text as UTF-8.
 */
export const UTF8_BOM = '\uFEFF';

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
