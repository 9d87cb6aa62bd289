import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_VOCABULARIES,
  defaultResults,
  globToRegExp,
  VcaLabels,
  VcaLabelsError,
} from '../../../src-main/emulator/vca-labels';
import { VCA_TYPES } from '../../../src-main/protocol/types';

const fixture = path.resolve(__dirname, '../../fixtures/vca-labels.json');

describe('VcaLabels from the fixture file', () => {
  const labels = VcaLabels.fromFile(fixture);

  it('answers the first matching entry, leaving out types with no labels', () => {
    const o = labels.analyse('http://127.0.0.1:5555/dl/b1/videos/beach-2024.mp4');
    expect(o).toEqual({
      kind: 'results',
      results: [
        {
          type: 'scenario',
          result: [
            { attribute: 'beach', confidence: 0.97 },
            { attribute: 'outdoor', confidence: 0.88 },
          ],
        },
        { type: 'entity', result: [{ attribute: 'surfboard', confidence: 0.81 }] },
        { type: 'location', result: [{ attribute: 'Bondi', confidence: 0.64 }] },
      ],
    });
  });

  it('filters by the requested types', () => {
    const o = labels.analyse('http://127.0.0.1:1/x/videos/beach-1.mp4', ['entity', 'figure']);
    expect(o).toEqual({
      kind: 'results',
      results: [{ type: 'entity', result: [{ attribute: 'surfboard', confidence: 0.81 }] }],
    });
  });

  it('gives the entry error for an entry with error, and ? matches exactly one character', () => {
    expect(labels.analyse('http://127.0.0.1:9/dl/videos/corrupt.mp4')).toEqual({
      kind: 'error',
      message: 'the video stream cannot be decoded',
    });
    expect(labels.analyse('http://127.0.0.1:9/served/talk1.mp4')).toMatchObject({
      kind: 'results',
      results: [{ type: 'figure' }, { type: 'keyword' }],
    });
    const noMatch = labels.analyse('http://127.0.0.1:9/served/talk12.mp4');
    expect(noMatch).toEqual({ kind: 'results', results: defaultResults('http://127.0.0.1:9/served/talk12.mp4') });
  });
});

describe('the default labels', () => {
  it('follow the documented derivation from SHA-1 of the URL', () => {
    const url = 'http://example.com/video.mp4';
    const h = createHash('sha1').update(url).digest();
    const groups = defaultResults(url);
    const scenario = groups.find((g) => g.type === 'scenario')!;
    const n = DEFAULT_VOCABULARIES.scenario.length;
    expect(scenario.result).toHaveLength(1 + (h[0]! % 2));
    expect(scenario.result[0]).toEqual({
      attribute: DEFAULT_VOCABULARIES.scenario[h[1]! % n],
      confidence: Math.round((0.5 + (0.49 * h[1]!) / 255) * 1000) / 1000,
    });
    expect(groups.map((g) => g.type).slice(0, 3)).toEqual(['scenario', 'entity', 'keyword']);
    for (const g of groups) {
      expect(VCA_TYPES).toContain(g.type);
      expect(new Set(g.result.map((l) => l.attribute)).size).toBe(g.result.length);
      for (const l of g.result) {
        expect(l.confidence).toBeGreaterThanOrEqual(0.5);
        expect(l.confidence).toBeLessThanOrEqual(0.99);
      }
    }
  });

  it('are stable for one URL and differ between URLs', () => {
    expect(defaultResults('http://a/1.mp4')).toEqual(defaultResults('http://a/1.mp4'));
    const distinct = new Set(Array.from({ length: 20 }, (_, i) => JSON.stringify(defaultResults(`http://a/${i}.mp4`))));
    expect(distinct.size).toBeGreaterThan(15);
  });
});

describe('label file validation', () => {
  it.each([
    [{ jobs: [{ match: 'x' }] }, /exactly one of "results" or "error"/],
    [{ jobs: [{ match: 'x', results: { colour: [] } }] }, /jobs\.0\.results/],
    [
      { jobs: [{ match: 'x', results: { scenario: [{ attribute: 'a', confidence: 1.5 }] } }] },
      /jobs\.0\.results\.scenario\.0\.confidence/,
    ],
    [{ entries: [] }, /expected shape/],
  ])('refuses %j with a message naming the place', (raw, msg) => {
    expect(() => VcaLabels.fromJson(raw)).toThrow(VcaLabelsError);
    expect(() => VcaLabels.fromJson(raw)).toThrow(msg);
  });

  it('names the file when it is missing or not JSON', async () => {
    expect(() => VcaLabels.fromFile('/nonexistent/labels.json')).toThrow(
      /cannot read the VCA label file \/nonexistent\/labels.json/,
    );
    const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-vca-'));
    try {
      const f = path.join(dir, 'bad.json');
      await writeFile(f, '{ not json');
      expect(() => VcaLabels.fromFile(f)).toThrow(/is not valid JSON/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('globs treat regex characters literally', () => {
    expect(globToRegExp('http://h/a.mp4?x=(1)').test('http://h/a.mp4?x=(1)')).toBe(true);
    expect(globToRegExp('http://h/a.mp4').test('http://h/aXmp4')).toBe(false);
  });
});
