import { describe, expect, it } from 'vitest';
import {
  KEYMAP,
  conflicts,
  keyLabel,
  matches,
  parseKeys,
  shortcutsOf,
  type Shortcut,
} from '../../../src-renderer/components/keymap';
import { SCREENS } from '../../../src-renderer/store/app';
import { en } from '../../../src-renderer/i18n/en';

const key = (k: string, mods: Partial<{ ctrl: boolean; meta: boolean; shift: boolean; alt: boolean }> = {}) => ({
  key: k,
  ctrlKey: mods.ctrl ?? false,
  metaKey: mods.meta ?? false,
  shiftKey: mods.shift ?? false,
  altKey: mods.alt ?? false,
});

describe('keymap', () => {
  it('reads chords: Mod, Shift, Alt and the key, Space as " "', () => {
    expect(parseKeys('Mod+Shift+Z')).toEqual({ mod: true, shift: true, alt: false, key: 'z' });
    expect(parseKeys('Space')).toEqual({ mod: false, shift: false, alt: false, key: ' ' });
    expect(parseKeys('ArrowDown').key).toBe('ArrowDown');
  });

  it('matches Ctrl or Cmd for Mod, and nothing with a modifier the chord lacks', () => {
    expect(matches('Mod+1', key('1', { ctrl: true }))).toBe(true);
    expect(matches('Mod+1', key('1', { meta: true }))).toBe(true);
    expect(matches('Mod+1', key('1'))).toBe(false);
    expect(matches('Mod+1', key('1', { ctrl: true, alt: true }))).toBe(false);
    expect(matches('Mod+F', key('F', { ctrl: true, shift: true }))).toBe(false);
    expect(matches('Mod+Z', key('z', { meta: true }))).toBe(true);
    expect(matches('j', key('j'))).toBe(true);
    expect(matches('j', key('J', { shift: true }))).toBe(false);
    expect(matches('j', key('j', { ctrl: true }))).toBe(false);
    expect(matches('Space', key(' '))).toBe(true);
    // "?" is Shift+/ on most layouts: its Shift belongs to the key.
    expect(matches('?', key('?', { shift: true }))).toBe(true);
    expect(matches('?', key('/'))).toBe(false);
  });

  it('labels chords the way each platform writes them', () => {
    expect(keyLabel('Mod+F', false)).toBe('Ctrl+F');
    expect(keyLabel('Mod+F', true)).toBe('⌘F');
    expect(keyLabel('Shift+ArrowDown', false)).toBe('Shift+↓');
    expect(keyLabel('Shift+ArrowDown', true)).toBe('⇧↓');
    expect(keyLabel('j', false)).toBe('j');
    expect(keyLabel('Space', true)).toBe('Space');
    expect(keyLabel('?', false)).toBe('?');
  });

  it('has no two shortcuts that fire together, and finds one that would', () => {
    expect(conflicts(KEYMAP)).toEqual([]);
    const clash: Shortcut[] = [
      { id: 'a', keys: 'Mod+1', scope: 'global', description: 'x' },
      { id: 'b', keys: 'Mod+1', scope: 'vca', description: 'y' },
      { id: 'c', keys: 'j', scope: 'vca', description: 'z' },
      { id: 'd', keys: 'j', scope: 'tasks', description: 'z' },
      // The element's own Space only fires while it has focus: no clash with the window's.
      { id: 'e', keys: 'Space', scope: 'vca', description: 'z', where: 'element' },
      { id: 'f', keys: 'Space', scope: 'vca', description: 'z' },
    ];
    expect(conflicts(clash)).toEqual(['a and b: Mod+1']);
  });

  it('binds Ctrl/Cmd+1…5 to the five screens in order, and describes every shortcut in the catalog', () => {
    const screens = shortcutsOf('global').filter((s) => s.id.startsWith('screen.'));
    expect(screens.map((s) => [s.id, s.keys])).toEqual(SCREENS.map((name, i) => [`screen.${name}`, `Mod+${i + 1}`]));
    const described = Object.keys(en.shortcuts);
    for (const s of KEYMAP) expect(described, s.id).toContain(s.description);
  });
});
