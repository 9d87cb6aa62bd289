import type { MessageBoxOptions } from 'electron';

/**
 * The window does not go while its page holds review decisions not saved yet, unless the
 * person says so (Electron's pattern: the page's `beforeunload` cancels the unload, the main
 * process hears 'will-prevent-unload' and asks).
 *
 * The question is asked with the asynchronous message box: a synchronous one would stop the
 * main process (uploads, IPC, the very answers the decisions wait for) while it is open, and
 * 'will-prevent-unload' can only let the page go synchronously. So the unload is left
 * cancelled (the window stays), the person is asked, and on "Quit anyway" the window is
 * closed again with the page's refusal ignored once. If every decision is saved while the
 * question is open, it closes by itself and the close goes ahead: nothing is lost any more.
 */

/** What the page is leaving for: the window closing (which quits the app) or a reload. */
export type LeaveAction = 'quit' | 'reload';

/** The question's words and buttons (`buttons[0]` Wait: default and cancel). */
export function unsentDialog(count: number, action: LeaveAction): MessageBoxOptions & { buttons: string[] } {
  const what =
    count <= 0
      ? 'Review decisions are still being saved'
      : count === 1
        ? '1 review decision is still being saved'
        : `${count} review decisions are still being saved`;
  const them = count === 1 ? 'it is' : 'they are';
  const detail =
    action === 'quit'
      ? `If Blocklift quits now, ${them} lost and the labels keep their earlier state. ` +
        `If ${them} saved while this message is open, Blocklift quits then. Wait keeps Blocklift open.`
      : `If the page reloads now, ${them} lost and the labels keep their earlier state. ` +
        `If ${them} saved while this message is open, the page reloads then.`;
  return {
    type: 'warning',
    title: 'Blocklift',
    message: `${what}.`,
    detail,
    buttons: ['Wait', action === 'quit' ? 'Quit anyway' : 'Reload anyway'],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
  };
}

/** What the person's answer means: true lets the page go (unsaved decisions lost), false keeps it. */
export function goesAnyway(response: number): boolean {
  return response === 1;
}

/** The window as the guard needs it (Electron's BrowserWindow; the stand-in's in tests). */
export interface GuardedWindow {
  close(): void;
  destroy(): void;
  isDestroyed(): boolean;
  once(event: 'closed', listener: () => void): unknown;
  webContents: {
    on(event: 'will-prevent-unload', listener: (event: { preventDefault(): void }) => void): unknown;
    on(event: 'did-navigate', listener: () => void): unknown;
    reload(): void;
  };
}

export interface CloseGuardOptions {
  window: GuardedWindow;
  /** How many review decisions the page holds unsaved (what it last reported). */
  unsent(): number;
  /** Shows the question (the window's modal message box); resolves with the button's index. */
  ask(options: MessageBoxOptions, signal: AbortSignal): Promise<number>;
  /** Brings the window to the front (the question is asked on it; it may be hidden in the tray). */
  show(): void;
  /** Before the window is destroyed without its 'close' (session end): what 'close' would have saved. */
  beforeDestroy(): void;
  log(level: 'info' | 'warn', text: string): void;
}

/** Whether the window went; if it stayed, why. */
export type Leave = { left: true } | { left: false; why: string };

export interface CloseGuard {
  /** The window's close goes ahead (not to the tray): a refusal of the page now is a quit's. */
  closing(): void;
  /**
   * Closes the window for a quit and resolves when it has gone, or stayed because the person
   * chose Wait. `force` (no one to ask: a session end) destroys it without asking the page.
   */
  leave(force: boolean): Promise<Leave>;
  /** The page reported a new count (ipc.ts): at 0 an open question has no reason left. */
  unsentChanged(count: number): void;
}

const decisions = (n: number) => (n === 1 ? '1 review decision' : `${n} review decisions`);

export function guardClose(opts: CloseGuardOptions): CloseGuard {
  const win = opts.window;
  /** The page's next refusal is ignored (the person chose to go, or nobody can be asked). */
  let letGo = false;
  /** A close (not a reload) is under way: set by the window's 'close', used by the next refusal. */
  let closeUnderWay = false;
  /** The open question, if any: aborted when it has no reason left or nobody can answer. */
  let asking: { action: LeaveAction; controller: AbortController } | null = null;
  let waiting: Array<(r: Leave) => void> = [];
  const settle = (r: Leave) => {
    const w = waiting;
    waiting = [];
    for (const resolve of w) resolve(r);
  };
  win.once('closed', () => {
    asking?.controller.abort('gone');
    settle({ left: true });
  });
  // A new document: a refusal ignored once is used up (or the page did not refuse after all).
  win.webContents.on('did-navigate', () => {
    letGo = false;
  });

  const go = (action: LeaveAction) => {
    if (win.isDestroyed()) return;
    letGo = true;
    if (action === 'quit') win.close();
    else win.webContents.reload();
  };

  win.webContents.on('will-prevent-unload', (event) => {
    const action: LeaveAction = closeUnderWay ? 'quit' : 'reload';
    closeUnderWay = false;
    if (letGo) {
      letGo = false;
      event.preventDefault();
      return;
    }
    // Not prevented: the unload stays cancelled while the person is asked (see above).
    if (asking) return;
    const count = opts.unsent();
    const question = new AbortController();
    asking = { action, controller: question };
    opts.show();
    opts.ask(unsentDialog(count, action), question.signal).then(
      (response) => {
        if (asking?.controller === question) asking = null;
        // Gone meanwhile, or replaced by a quit's question (leave() during a reload's).
        if (win.isDestroyed() || question.signal.reason === 'replaced') return;
        if (question.signal.aborted && question.signal.reason === 'saved') {
          opts.log('info', `the unsaved review decisions were saved while asking: the ${action} goes ahead`);
          go(action);
        } else if (goesAnyway(response)) {
          opts.log('warn', `${action} anyway: ${decisions(opts.unsent())} not saved are lost`);
          go(action);
        } else {
          const why = `the person chose to wait: ${count > 0 ? decisions(count) : 'review decisions'} still being saved`;
          if (waiting.length === 0) opts.log('info', `the window stays (${action} cancelled): ${why}`);
          settle({ left: false, why });
        }
      },
      (e: unknown) => {
        if (asking?.controller === question) asking = null;
        const why = `the question could not be shown (${(e as Error)?.message ?? String(e)}); nothing was lost`;
        opts.log('warn', `the window stays: ${why}`);
        settle({ left: false, why });
      },
    );
  });

  return {
    closing() {
      closeUnderWay = true;
    },
    leave(force) {
      if (win.isDestroyed()) return Promise.resolve({ left: true });
      const gone = new Promise<Leave>((resolve) => waiting.push(resolve));
      if (force) {
        const lost = opts.unsent();
        opts.log(
          lost > 0 ? 'warn' : 'info',
          `the window closes without asking${lost > 0 ? `: ${decisions(lost)} not saved are lost` : ''}`,
        );
        asking?.controller.abort('forced');
        opts.beforeDestroy();
        win.destroy();
      } else if (asking?.action === 'quit') {
        // Already asking whether to close (its answer settles this too): only bring it to the front.
        opts.show();
      } else {
        // A reload's question gives way: the page is asked again, now for the quit.
        asking?.controller.abort('replaced');
        asking = null;
        win.close();
      }
      return gone;
    },
    unsentChanged(count) {
      if (count === 0) asking?.controller.abort('saved');
    },
  };
}
