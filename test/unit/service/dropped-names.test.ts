import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { droppedAs, namedAsDropped } from '../../../src-main/service/data-dir';

describe('a staged file named as dropped', () => {
  let tmp = '';
  afterEach(() => tmp && rmSync(tmp, { recursive: true, force: true }));

  it('replaces the staged path everywhere in a message and keeps the reason word for word', () => {
    const staged = '/data/staging/3f2a/card/clip.mp4';
    const node = `EISDIR: illegal operation on a directory, open '${staged}'`;
    expect(namedAsDropped(`${staged} cannot be opened: ${node}`, staged, 'card/clip.mp4')).toBe(
      "card/clip.mp4 cannot be opened: EISDIR: illegal operation on a directory, open 'card/clip.mp4'",
    );
    // Not dropped, or no path: as it was.
    expect(namedAsDropped(`${staged} does not exist`, staged, undefined)).toBe(`${staged} does not exist`);
    expect(namedAsDropped('The service answered 503', '', 'x')).toBe('The service answered 503');
  });

  it('names a path in the staging folder as given, and not one reached by its real path (a named link)', () => {
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'bl-dropped-')));
    mkdirSync(path.join(tmp, 'real', 'staging'), { recursive: true });
    symlinkSync(path.join(tmp, 'real'), path.join(tmp, 'link'));
    const of = (p: string) => droppedAs(path.join(tmp, 'link', 'staging'), p);
    expect(of(path.join(tmp, 'link', 'staging', 'b1', 'photos', 'a.jpg'))).toBe('photos/a.jpg');
    expect(of(path.join(tmp, 'real', 'staging', 'b1', 'a.jpg'))).toBeUndefined();
    expect(of(path.join(tmp, 'link', 'elsewhere', 'a.jpg'))).toBeUndefined();
    expect(droppedAs(undefined, '/any/a.jpg')).toBeUndefined();
  });
});
