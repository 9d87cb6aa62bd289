/**
 * The one keymap of the UI: every shortcut with its keys, the screen it belongs to and the
 * catalog key of its description. `useShortcuts` binds the window-wide ones from here and the
 * `?` sheet (ShortcutsSheet) lists all of them, so what is bound and what is shown cannot
 * drift apart. Shortcuts bound by one element (the Transfers grid, the schedule grid) are
 * listed here too (`where: 'element'`) and bound by that element.
 *
 * Keys are written as "Mod+1", "Shift+?", "j", "Space", "ArrowDown": `Mod` is Cmd on a Mac
 * and Ctrl elsewhere (both are accepted everywhere, as the app already did for Ctrl/Cmd+1…5).
 */
import type { Screen } from '../store/app';

export type ShortcutScope = 'global' | Screen;

export interface Shortcut {
  id: string;
  keys: string;
  scope: ShortcutScope;
  /** i18n key of the description (under `shortcuts.`). */
  description: string;
  /** 'window' (bound by useShortcuts, default) or 'element' (bound by the focused element, listed only). */
  where?: 'window' | 'element';
  /** Also fires while a text field has focus (screen switches, focusing the search). */
  whileTyping?: boolean;
  /**
   * false: a held key acts once, its auto-repeats are ignored. For keys that decide something
   * (accept, reject…): a held "a" would otherwise decide label after label and, past the last
   * one, the labels of the next video, which the reviewer never saw.
   */
  repeats?: boolean;
}

export const KEYMAP: readonly Shortcut[] = [
  { id: 'help', keys: '?', scope: 'global', description: 'help' },
  { id: 'screen.transfers', keys: 'Mod+1', scope: 'global', description: 'screenTransfers', whileTyping: true },
  { id: 'screen.folders', keys: 'Mod+2', scope: 'global', description: 'screenFolders', whileTyping: true },
  { id: 'screen.tasks', keys: 'Mod+3', scope: 'global', description: 'screenTasks', whileTyping: true },
  { id: 'screen.vca', keys: 'Mod+4', scope: 'global', description: 'screenVca', whileTyping: true },
  { id: 'screen.settings', keys: 'Mod+5', scope: 'global', description: 'screenSettings', whileTyping: true },
  { id: 'search', keys: 'Mod+F', scope: 'transfers', description: 'search', whileTyping: true },
  { id: 'list.move', keys: 'ArrowDown', scope: 'transfers', description: 'listMove', where: 'element' },
  { id: 'list.moveUp', keys: 'ArrowUp', scope: 'transfers', description: 'listMoveUp', where: 'element' },
  { id: 'list.extend', keys: 'Shift+ArrowDown', scope: 'transfers', description: 'listExtend', where: 'element' },
  { id: 'list.toggle', keys: 'Space', scope: 'transfers', description: 'listToggle', where: 'element' },
  { id: 'list.open', keys: 'Enter', scope: 'transfers', description: 'listOpen', where: 'element' },
  { id: 'list.all', keys: 'Mod+A', scope: 'transfers', description: 'listAll', where: 'element' },
  { id: 'vca.next', keys: 'j', scope: 'vca', description: 'vcaNext' },
  { id: 'vca.previous', keys: 'k', scope: 'vca', description: 'vcaPrevious' },
  { id: 'vca.accept', keys: 'a', scope: 'vca', description: 'vcaAccept', repeats: false },
  { id: 'vca.reject', keys: 'r', scope: 'vca', description: 'vcaReject', repeats: false },
  { id: 'vca.correct', keys: 'e', scope: 'vca', description: 'vcaCorrect', repeats: false },
  { id: 'vca.nextVideo', keys: 'n', scope: 'vca', description: 'vcaNextVideo', repeats: false },
  { id: 'vca.play', keys: 'Space', scope: 'vca', description: 'vcaPlay' },
  { id: 'vca.undo', keys: 'Mod+Z', scope: 'vca', description: 'vcaUndo' },
  { id: 'schedule.move', keys: 'ArrowRight', scope: 'settings', description: 'scheduleMove', where: 'element' },
  { id: 'schedule.paint', keys: 'Space', scope: 'settings', description: 'schedulePaint', where: 'element' },
];

export interface Chord {
  mod: boolean;
  shift: boolean;
  alt: boolean;
  /** The key as KeyboardEvent.key names it ("j", "?", " ", "ArrowDown"), lower case for letters. */
  key: string;
}

/** "Mod+Shift+Z" → its parts. "Space" is the key " ". */
export function parseKeys(keys: string): Chord {
  const parts = keys.split('+');
  // "Mod++" would be a plus key; none is used, so the last part is the key.
  const last = parts.pop() ?? '';
  const key = last === 'Space' ? ' ' : last.length === 1 ? last.toLowerCase() : last;
  return { mod: parts.includes('Mod'), shift: parts.includes('Shift'), alt: parts.includes('Alt'), key };
}

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

/**
 * Whether a key event is the chord. Shift is only compared for keys that are not themselves
 * shifted characters: "?" is Shift+/ on most layouts, so its Shift is part of the key.
 */
export function matches(keys: string, e: KeyLike): boolean {
  const c = parseKeys(keys);
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (key !== c.key) return false;
  if ((e.ctrlKey || e.metaKey) !== c.mod || e.altKey !== c.alt) return false;
  const shiftedChar = c.key.length === 1 && !/[a-z0-9 ]/.test(c.key);
  return shiftedChar || e.shiftKey === c.shift;
}

/** The chord as a person reads it: "Ctrl+F" / "⌘F", "Shift+↓" / "⇧↓", "Space", a bare letter in lower case. */
export function keyLabel(keys: string, mac: boolean): string {
  const c = parseKeys(keys);
  const names: Record<string, string> = { ' ': 'Space', ArrowDown: '↓', ArrowUp: '↑', ArrowLeft: '←', ArrowRight: '→' };
  const bare = !c.mod && !c.alt && !c.shift;
  const key = names[c.key] ?? (c.key.length === 1 && !bare ? c.key.toUpperCase() : c.key);
  if (mac) return (c.mod ? '⌘' : '') + (c.alt ? '⌥' : '') + (c.shift ? '⇧' : '') + key;
  return [c.mod ? 'Ctrl' : '', c.alt ? 'Alt' : '', c.shift ? 'Shift' : '', key].filter(Boolean).join('+');
}

/**
 * Shortcuts that would fire together: the same chord twice in one scope, or a screen's chord
 * equal to a global one (both are live on that screen). Empty for a sound keymap.
 */
export function conflicts(keymap: readonly Shortcut[]): string[] {
  const found: string[] = [];
  const norm = (s: Shortcut) => JSON.stringify(parseKeys(s.keys));
  keymap.forEach((a, i) => {
    for (const b of keymap.slice(i + 1)) {
      const together = a.scope === b.scope || a.scope === 'global' || b.scope === 'global';
      // An element's own keys only fire while it has focus, where the window's do not.
      const sameBinding = (a.where ?? 'window') === (b.where ?? 'window');
      if (together && sameBinding && norm(a) === norm(b)) found.push(`${a.id} and ${b.id}: ${a.keys}`);
    }
  });
  return found;
}

export function shortcutsOf(scope: ShortcutScope): Shortcut[] {
  return KEYMAP.filter((s) => s.scope === scope);
}
