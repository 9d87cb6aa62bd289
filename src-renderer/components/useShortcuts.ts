/**
 * Binds the window-wide shortcuts of one scope (components/keymap.ts) to handlers by id,
 * while the calling component is mounted and `enabled`. A key another handler already took
 * (defaultPrevented, e.g. the Transfers grid's own keys) is left alone; the auto-repeat of a
 * held key is ignored for a shortcut marked `repeats: false`.
 */
import { useEffect, useRef } from 'react';
import { matches, parseKeys, shortcutsOf, type Shortcut, type ShortcutScope } from './keymap';

export type ShortcutHandlers = Partial<Record<string, () => void>>;

export function useShortcuts(scope: ShortcutScope, handlers: ShortcutHandlers, enabled = true): void {
  const current = useRef(handlers);
  useEffect(() => {
    current.current = handlers;
  });
  useEffect(() => {
    if (!enabled) return;
    const bindings = shortcutsOf(scope).filter((s) => (s.where ?? 'window') === 'window');
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const s = bindings.find((b) => current.current[b.id] && matches(b.keys, e));
      if (!s || !allowedOn(s, e.target)) return;
      e.preventDefault();
      // A held key's auto-repeat, for a shortcut that acts once per press.
      if (e.repeat && s.repeats === false) return;
      current.current[s.id]?.();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [scope, enabled]);
}

/** A text field has focus: single keys are typing there, not shortcuts. */
function isTyping(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

const ACTIVATES = ['BUTTON', 'A', 'VIDEO', 'AUDIO', 'SUMMARY'];
const ACTIVATING_ROLES = ['button', 'checkbox', 'switch', 'radio', 'tab', 'menuitem', 'slider', 'gridcell', 'link'];

/** The focused element does something with Space or Enter itself (a button, a switch…). */
function usesActivationKeys(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  return ACTIVATES.includes(el.tagName) || ACTIVATING_ROLES.includes(el.getAttribute('role') ?? '');
}

/**
 * A modal that lets the window's shortcuts through (a detail drawer beside the list, whose
 * own keys are only Escape and Tab) carries this class on an ancestor of its dialog.
 */
export const ALLOWS_SHORTCUTS = 'allows-shortcuts';

/**
 * Whether a window-wide shortcut may fire for a key pressed on `target`: never inside a
 * modal dialog (its own keys come first) unless it lets them through (ALLOWS_SHORTCUTS),
 * single keys not while typing, and Space or Enter not on an element they already activate.
 */
function allowedOn(s: Shortcut, target: EventTarget | null): boolean {
  const modal = target instanceof HTMLElement ? target.closest('[aria-modal="true"]') : null;
  if (modal && !modal.closest(`.${ALLOWS_SHORTCUTS}`)) return false;
  if (isTyping(target) && !s.whileTyping) return false;
  const key = parseKeys(s.keys).key;
  return !((key === ' ' || key === 'Enter') && usesActivationKeys(target));
}

/** The platform reads Cmd as its modifier. */
export function isMac(): boolean {
  return /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
}
