import { describe, expect, it } from 'vitest';
import { csvField, toCsv } from '../../../src-main/tasks/csv';
import { readCsv } from '../../helpers/csv';
import { acceptedRows, effectiveDecision } from '../../../src-main/tasks/review';
import { exportCsv, exportJson, EXPORT_COLUMNS } from '../../../src-main/tasks/vca-export';
import { isVideo, parseExtensionList } from '../../../src-main/tasks/video-detect';
import { AccessUrlError, objectAccessUrl } from '../../../src-main/tasks/access-url';
import type { VcaJobRow, VcaLabelRow } from '../../../src-main/store/tasks/vca-repo';

describe('RFC 4180 CSV', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['', ''],
    [' spaced ', ' spaced '],
  ])('field %j → %j', (input, out) => {
    expect(csvField(input)).toBe(out);
  });

  it('ends every record with CRLF and parses back to the same values', () => {
    const rows = [
      ['1', 'a,b', 'say "hi"'],
      ['2', 'two\r\nlines', ''],
      ['3', 'ünïcødé 标签', '=1+2'],
    ];
    const text = toCsv(['id', 'x', 'y'], rows);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.split('\r\n')[0]).toBe('\uFEFFid,x,y');
    // A formula comes back neutralised (one-way, see csv.ts).
    expect(readCsv(text)).toEqual([['id', 'x', 'y'], rows[0], rows[1], ['3', 'ünïcødé 标签', "'=1+2"]]);
  });

  it('neutralises formulas, writes a UTF-8 BOM and RFC 4180 quoting: checked by an independent reader', () => {
    const labels = [
      '=cmd|"/c calc"!A1',
      '+1',
      '-2+3',
      '@SUM(A1)',
      '\tTAB',
      '\rCR',
      'a, comma',
      'say "hi"',
      'two\nlines',
      'café',
      'plain-dash',
    ];
    const text = toCsv(['label', 'confidence'], [...labels.map((l) => [l, 0.5]), ['neg', -0.5]]);
    const bytes = Buffer.from(text, 'utf8');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const records = readCsv(bytes.toString('utf8'));
    expect(records[0]).toEqual(['label', 'confidence']);
    expect(records.slice(1).map((r) => r[0])).toEqual([
      '\'=cmd|"/c calc"!A1',
      "'+1",
      "'-2+3",
      "'@SUM(A1)",
      "'\tTAB",
      "'\rCR",
      'a, comma',
      'say "hi"',
      'two\nlines',
      'café',
      'plain-dash',
      'neg',
    ]);
    // Numbers stay numbers.
    expect(records[records.length - 1]).toEqual(['neg', '-0.5']);
    expect(records.every((r) => r.length === 2)).toBe(true);
  });
});

const job = (over: Partial<VcaJobRow> = {}): VcaJobRow => ({
  id: 1,
  accountId: 1,
  mgrUrl: null,
  jobId: 'job-1',
  bucket: 'media',
  sourceUrl: 'http://dl/v,1.mp4',
  origin: 'created',
  transferId: null,
  notifyUrl: null,
  code: 3,
  description: '',
  notifyResult: 0,
  minConfidence: 0.5,
  tracking: 'done',
  errorCode: null,
  errorMessage: null,
  errorAt: null,
  consecutiveErrors: 0,
  notFoundSince: null,
  polls: 1,
  nextPollAt: null,
  createdAt: 0,
  updatedAt: 0,
  finishedAt: 0,
  ...over,
});
let nextId = 1;
const label = (
  type: VcaLabelRow['type'],
  attribute: string,
  confidence: number,
  decision: VcaLabelRow['decision'] = 'pending',
  correctedText: string | null = null,
): VcaLabelRow => ({
  id: nextId++,
  jobRow: 1,
  type,
  attribute,
  confidence,
  position: nextId,
  decision,
  correctedText,
  decidedAt: decision === 'pending' ? null : 1,
});

describe('review model', () => {
  it.each([
    ['pending', 0.9, 0.5, 'above-threshold'],
    ['pending', 0.5, 0.5, 'above-threshold'],
    ['pending', 0.49, 0.5, 'below-threshold'],
    ['accepted', 0.1, 0.5, 'accepted'],
    ['rejected', 0.99, 0.5, 'rejected'],
    ['corrected', 0.2, 0.5, 'corrected'],
  ] as const)('%s at %f with threshold %f → %s', (decision, confidence, min, expected) => {
    expect(effectiveDecision({ decision, confidence }, min)).toBe(expected);
  });

  it('exports accepted, corrected and above-threshold labels with the corrected text', () => {
    const labels = [
      label('scenario', 'beach', 0.9),
      label('scenario', 'desert', 0.95, 'rejected'),
      label('entity', 'dog', 0.2, 'accepted'),
      label('entity', 'cat', 0.3),
      label('figure', 'Jon "the" Doe', 0.7, 'corrected', 'John Doe, Jr.'),
    ];
    const rows = acceptedRows(job(), labels);
    expect(rows.map((r) => [r.type, r.label, r.decision])).toEqual([
      ['scenario', 'beach', 'above-threshold'],
      ['entity', 'dog', 'accepted'],
      ['figure', 'John Doe, Jr.', 'corrected'],
    ]);
    const parsed = readCsv(exportCsv(rows));
    expect(parsed[0]).toEqual([...EXPORT_COLUMNS]);
    expect(parsed[3]).toEqual([
      'job-1',
      'http://dl/v,1.mp4',
      'media',
      'figure',
      'John Doe, Jr.',
      'Jon "the" Doe',
      '0.7',
      'corrected',
    ]);
    const json = JSON.parse(exportJson(rows)) as { confidence: number; label: string }[];
    expect(json).toHaveLength(3);
    expect(json[1]).toMatchObject({ label: 'dog', confidence: 0.2 });
  });

  it('a higher threshold lets fewer undecided labels through', () => {
    const labels = [label('keyword', 'a', 0.6), label('keyword', 'b', 0.8)];
    expect(acceptedRows(job({ minConfidence: 0.7 }), labels).map((r) => r.label)).toEqual(['b']);
    expect(acceptedRows(job({ minConfidence: 0 }), labels).map((r) => r.label)).toEqual(['a', 'b']);
  });
});

describe('video detection', () => {
  it.each([
    ['clip.MP4', undefined, true],
    ['movie.mkv', undefined, true],
    ['notes.txt', undefined, false],
    ['code.ts', undefined, false],
    ['noext', undefined, false],
    ['noext', 'video/mp4', true],
    ['weird.bin', 'video/quicktime; charset=binary', true],
    ['clip.mp4', 'image/png', false],
    ['clip.mp4', 'application/octet-stream', true],
  ] as const)('%s (%s) → %s', (p, mime, expected) => {
    expect(isVideo(p, mime)).toBe(expected);
  });

  it('takes a custom extension list', () => {
    expect(parseExtensionList('MP4, .ts ;webm')).toEqual(['.mp4', '.ts', '.webm']);
    expect(isVideo('seg.ts', undefined, { extensions: parseExtensionList('ts') })).toBe(true);
  });
});

describe('objectAccessUrl', () => {
  it.each([
    ['dl.example.com', 'a/b c.mp4', 'http://dl.example.com/a/b%20c.mp4'],
    ['https://dl.example.com/', 'x#y?.mp4', 'https://dl.example.com/x%23y%3F.mp4'],
    ['http://127.0.0.1:9000/dl', 'v/视频.mp4', 'http://127.0.0.1:9000/dl/v/%E8%A7%86%E9%A2%91.mp4'],
  ])('%s + %s', (domain, key, url) => {
    expect(objectAccessUrl(domain, key)).toBe(url);
  });

  it('refuses what cannot make a URL', () => {
    expect(() => objectAccessUrl('', 'k')).toThrow(AccessUrlError);
    expect(() => objectAccessUrl('ftp://x', 'k')).toThrow(/http/);
    expect(() => objectAccessUrl('dl.example.com', '')).toThrow(AccessUrlError);
  });
});
