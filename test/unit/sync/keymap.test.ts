import { describe, expect, it } from 'vitest';
import { MAX_KEY_BYTES, checkKeyTemplate, validateKey } from '../../../src-main/shared/keys';
import { mapKey } from '../../../src-main/sync/keymap';

const utc = (template: string, prefix = '') => ({ prefix, template, timeZone: 'utc' as const });
const MTIME = Date.UTC(2024, 4, 9, 13, 7, 0);

describe('mapKey', () => {
  it.each([
    ['{relpath}', 'backup/', 'photos/2024/a.jpg', 'backup/photos/2024/a.jpg'],
    ['{relpath}', '', 'a.jpg', 'a.jpg'],
    ['{date}/{relpath}', 'cam/', 'x/IMG_1.JPG', 'cam/2024-05-09/x/IMG_1.JPG'],
    ['{yyyy}/{mm}/{name}', '', 'deep/dir/clip.mov', '2024/05/clip.mov'],
    ['{dd}-{hh}/{stem}.{ext}', '', 'a/b.tar.gz', '09-13/b.tar.gz'],
    ['{dir}/{stem}', 'p/', 'a/b/c.txt', 'p/a/b/c'],
    // An empty placeholder segment is dropped with its '/', never a leading or double slash.
    ['{ext}/{name}', '', 'README', 'README'],
    ['{ext}/{name}', '', '.bashrc', '.bashrc'],
    ['{dir}/{name}', '', 'a.jpg', 'a.jpg'],
    ['{dir}/{name}', 'cam/', 'a.jpg', 'cam/a.jpg'],
    ['{dir}/{name}', 'cam/', 'x/y/a.jpg', 'cam/x/y/a.jpg'],
    ['{yyyy}/{dir}/{name}', 'cam/', 'a.jpg', 'cam/2024/a.jpg'],
    ['{dir}/{ext}/{name}', '', 'README', 'README'],
    ['{name}/{ext}', 'p/', 'README', 'p/README'],
    ['{dir}-x/{name}', '', 'a.jpg', '-x/a.jpg'],
    ['/{name}', '', 'a.jpg', '/a.jpg'],
  ])('template %s with prefix %s maps %s to %s', (template, prefix, rel, expected) => {
    const r = mapKey(rel, MTIME, utc(template, prefix));
    if (expected.startsWith('/')) {
      expect(r).toMatchObject({ ok: false, code: 'leading-slash' });
    } else {
      expect(r).toEqual({ ok: true, key: expected });
    }
  });

  it.each([
    ['a//{name}', '', 'a.jpg'],
    ['/{relpath}', 'cam/', 'a.jpg'],
    ['{relpath}', 'cam//', 'a.jpg'],
  ])('rejects a double slash written by template %s with prefix %s, with a reason', (template, prefix, rel) => {
    const r = mapKey(rel, MTIME, utc(template, prefix));
    expect(r).toMatchObject({ ok: false, code: 'empty-segment' });
    expect(r.ok ? '' : r.message).toMatch(/empty path segment/);
  });

  it('normalizes to NFC (a macOS NFD name gives the same key as its NFC spelling)', () => {
    const nfd = 'cafe\u0301.txt';
    const r = mapKey(nfd, MTIME, utc('{relpath}'));
    expect(r).toEqual({ ok: true, key: 'caf\u00e9.txt' });
  });

  it('uses local time unless UTC is asked for', () => {
    const d = new Date(MTIME);
    const r = mapKey('a', MTIME, { prefix: '', template: '{hh}', timeZone: 'local' });
    expect(r).toEqual({ ok: true, key: String(d.getHours()).padStart(2, '0') });
  });
});

describe('validateKey', () => {
  it.each([
    ['', 'empty'],
    ['a\u0001b', 'control-character'],
    ['a\nb', 'control-character'],
    ['a\u007fb', 'control-character'],
    ['bad\uD800x', 'invalid-unicode'],
    ['bad\uDC00', 'invalid-unicode'],
    ['replaced\uFFFD.txt', 'invalid-unicode'],
    ['/abs', 'leading-slash'],
    ['a/../b', 'dot-segment'],
    ['a/./b', 'dot-segment'],
    ['x'.repeat(MAX_KEY_BYTES + 1), 'too-long'],
    ['é'.repeat(MAX_KEY_BYTES / 2 + 1), 'too-long'],
  ])('rejects %j as %s with a message', (key, code) => {
    const r = validateKey(key);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe(code);
      expect(r.message.length).toBeGreaterThan(10);
    }
  });

  it.each([
    ['x'.repeat(MAX_KEY_BYTES)],
    ['é'.repeat(MAX_KEY_BYTES / 2)],
    ['emoji 😀/ok'],
    ['spaces and #?&.txt'],
    ['a..b/c.'],
  ])('accepts %j', (key) => {
    expect(validateKey(key)).toEqual({ ok: true, key });
  });
});

describe('checkKeyTemplate', () => {
  it('accepts known placeholders and plain text', () => {
    expect(checkKeyTemplate('{date}/{relpath}')).toBeUndefined();
    expect(checkKeyTemplate('static/name')).toBeUndefined();
  });
  it('names an unknown placeholder and lists the known ones', () => {
    expect(checkKeyTemplate('{year}/{relpath}')).toMatch(/unknown placeholder \{year\}.*\{yyyy\}/);
  });
  it('refuses stray braces', () => {
    expect(checkKeyTemplate('{relpath')).toMatch(/unbalanced/);
    expect(checkKeyTemplate('a}b')).toMatch(/unbalanced/);
  });
});
