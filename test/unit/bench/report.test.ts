import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedResults, extractBlock, renderReport } from '../../bench/report';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe("README.md's benchmark tables", () => {
  it('are what `npm run bench:report` writes from the committed results files (run it after committing a run)', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(extractBlock(readme)).toBe(renderReport(committedResults(ROOT)));
  });
});
