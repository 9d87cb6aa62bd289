/**
 * The desktop app's way out, whatever asks for it (the tray's Quit, the dock, Cmd+Q, a
 * Windows log-off or shutdown): the window is asked to go first, and only once it has gone do
 * the tray and the app service close (chunks in flight commit; the engine cuts them after its
 * grace), then Electron quits. The window may stay: its page holds review decisions not saved
 * yet and the person chose Wait (close-guard.ts); then nothing else has changed (tray, service,
 * state), the quit is logged as cancelled, and a later Quit asks again. Guarded: a second Quit
 * while the window is asked or while closing changes nothing; bounded: a service that does not
 * close in `timeoutMs` (a chunk stuck where no abort reaches) does not hold the app forever.
 * The IPC handler is removed only once every window is gone ('will-quit'), so a page never
 * calls a verb that is no longer there.
 */
import type { Leave } from './close-guard';

/** The part of Electron's `app` this needs (Electron's `app` itself in main.ts). */
export interface QuitApp {
  on(event: 'before-quit' | 'will-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  quit(): void;
}

export interface QuitFlowOptions {
  app: QuitApp;
  /**
   * First step: the window really closes (not to the tray), and the answer says whether it
   * went. `force` (nobody can be asked: a session end) makes it go without asking its page.
   */
  leave(force: boolean): Promise<Leave>;
  /** Once the window has gone (and the service has started closing): the tray goes. */
  afterLeave(): void;
  /** Closes the app service (in-flight chunks commit). */
  close(): Promise<void>;
  /** Once every window is gone: remove the IPC handler. */
  afterWindows(): void;
  log(level: 'info' | 'warn', text: string): void;
  timeoutMs: number;
}

/** How long Quit waits for the service before it goes anyway (the engine's own grace is 3 s). */
export const QUIT_TIMEOUT_MS = 15_000;

export interface QuitFlow {
  /** True from a quit request on (until the window stays after all): closing the window then really closes it. */
  readonly quitting: boolean;
  /**
   * Quits as if asked by the OS without 'before-quit' (Windows 'session-end'): nobody can be
   * asked, so the window goes without asking its page (what it had not saved is lost, logged).
   */
  quitNow(why: string): void;
}

export function installQuitFlow(opts: QuitFlowOptions): QuitFlow {
  /** leaving: the window is asked to go (its page may hold unsaved decisions); closing: it went. */
  let state: 'running' | 'leaving' | 'closing' | 'closed' = 'running';

  const begin = (why: string, force: boolean) => {
    if (state === 'leaving') {
      if (force) {
        // The OS is ending the session while the person is being asked: nobody will answer.
        opts.log('info', `quit (${why}) while the window is asked: it goes without asking`);
        void opts.leave(true);
      } else opts.log('info', `quit (${why}) while the window is asked: waiting for that answer`);
      return;
    }
    if (state !== 'running') {
      if (state === 'closing') opts.log('info', `quit (${why}) while already closing: waiting for that`);
      return;
    }
    state = 'leaving';
    opts.log('info', `quitting (${why})`);
    void opts
      .leave(force)
      .catch((e: unknown): Leave => {
        opts.log('warn', `the window did not close cleanly: ${(e as Error)?.message ?? String(e)}`);
        return { left: true };
      })
      .then((left) => {
        if (left.left) closeAll();
        else {
          state = 'running';
          opts.log('info', `quit cancelled (${why}): ${left.why}; the app keeps running`);
        }
      });
  };

  /** The window has gone: the service starts closing (door.json first, main.ts), then the tray goes. */
  const closeAll = () => {
    state = 'closing';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), opts.timeoutMs);
    });
    const closed = opts.close().then(
      () => 'closed' as const,
      (e: unknown) => {
        opts.log('warn', `the app service failed to close: ${(e as Error)?.message ?? String(e)}`);
        return 'closed' as const;
      },
    );
    opts.afterLeave();
    void Promise.race([closed, timedOut]).then((how) => {
      clearTimeout(timer);
      if (how === 'timeout')
        opts.log(
          'warn',
          `the app service did not close in ${opts.timeoutMs / 1000} s; quitting anyway (interrupted transfers resume at the next start)`,
        );
      else opts.log('info', 'desktop app quit');
      state = 'closed';
      opts.app.quit();
    });
  };

  opts.app.on('before-quit', (event) => {
    if (state === 'closed') return;
    event.preventDefault();
    begin('quit', false);
  });
  opts.app.on('will-quit', () => opts.afterWindows());

  return {
    get quitting() {
      return state !== 'running';
    },
    quitNow: (why) => begin(why, true),
  };
}
