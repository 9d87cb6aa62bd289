import { describe, expect, it } from 'vitest';
import { CHECKS_PER_RULES, PathFilter } from '../../../src-main/sync/path-filter';

const base = { ignore: [], useDefaultIgnores: true, includeOnly: [], includeHidden: false };

describe('PathFilter', () => {
  const f = new PathFilter(base);
  it.each([
    ['.DS_Store', 'hidden'],
    ['a/Thumbs.db', 'ignore-rule'],
    ['x/file.tmp', 'ignore-rule'],
    ['dl/movie.mkv.part', 'ignore-rule'],
    ['docs/~$report.docx', 'ignore-rule'],
    ['desktop.ini', 'ignore-rule'],
    ['a/.hidden.txt', 'hidden'],
    ['photo.jpg', undefined],
    ['a/b/report.docx', undefined],
  ])('default rules: file %s → %s', (rel, reason) => {
    expect(f.fileReason(rel)).toBe(reason);
  });

  it('leaves out .git folders and hidden folders, keeps others', () => {
    expect(f.dirReason('.git')).toBe('hidden');
    expect(new PathFilter({ ...base, includeHidden: true }).dirReason('proj/.git')).toBe('ignore-rule');
    expect(f.dirReason('photos')).toBeUndefined();
    expect(f.dirReason('')).toBeUndefined();
  });

  it('applies user gitignore rules, negations and folder-only patterns', () => {
    const g = new PathFilter({ ...base, ignore: ['*.log', '!keep.log', 'build/', '# comment', ''] });
    expect(g.fileReason('a/x.log')).toBe('ignore-rule');
    expect(g.fileReason('keep.log')).toBeUndefined();
    expect(g.dirReason('src/build')).toBe('ignore-rule');
    expect(g.fileReason('build')).toBeUndefined();
    expect(g.pathReason('src/build/out.bin')).toBe('ignore-rule');
  });

  it('keeps no answer per path for long: the rules are rebuilt every CHECKS_PER_RULES checks, with the same answers', () => {
    const g = new PathFilter({ ...base, ignore: ['*.log', '!keep.log', 'build/'] });
    const rulesOf = () => (g as unknown as { rules: object }).rules;
    const first = rulesOf();
    const answers = () => [
      g.fileReason('a/x.log'),
      g.fileReason('keep.log'),
      g.dirReason('src/build'),
      g.pathReason('src/build/out.bin'),
      g.fileReason('x/file.tmp'),
      g.fileReason('photo.jpg'),
    ];
    const before = answers();
    expect(before).toEqual(['ignore-rule', undefined, 'ignore-rule', 'ignore-rule', 'ignore-rule', undefined]);
    for (let i = 0; i < CHECKS_PER_RULES; i++) g.fileReason(`d${i % 100}/f${i}.txt`);
    expect(rulesOf()).not.toBe(first); // a 100,000-file scan leaves no cache of 100,000 answers behind
    expect(answers()).toEqual(before);
  });

  it('include-only globs apply to files, not folders', () => {
    const g = new PathFilter({ ...base, includeOnly: ['**/*.jpg', '*.mov'] });
    expect(g.fileReason('a/b/c.jpg')).toBeUndefined();
    expect(g.fileReason('c.jpg')).toBeUndefined();
    expect(g.fileReason('clip.mov')).toBeUndefined();
    expect(g.fileReason('a/clip.mov')).toBe('not-included');
    expect(g.fileReason('notes.txt')).toBe('not-included');
    expect(g.dirReason('a')).toBeUndefined();
  });

  it('turning the defaults off and hidden on keeps everything', () => {
    const g = new PathFilter({ ...base, useDefaultIgnores: false, includeHidden: true });
    expect(g.fileReason('.DS_Store')).toBeUndefined();
    expect(g.fileReason('x.tmp')).toBeUndefined();
    expect(g.dirReason('.git')).toBeUndefined();
  });

  it('excluded folders (the data folder inside a root) are always left out', () => {
    const g = new PathFilter({ ...base, excludedDirs: ['state/db'] });
    expect(g.dirReason('state/db')).toBe('ignore-rule');
    expect(g.dirReason('state/db/wal')).toBe('ignore-rule');
    expect(g.dirReason('state/dbx')).toBeUndefined();
    expect(g.pathReason('state/db/x.sqlite')).toBe('ignore-rule');
  });
});
