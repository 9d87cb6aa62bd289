/**
 * The desktop app's way out, whatever asks for it (the tray's Quit, the dock, Cmd+Q, a
 * Windows log-off or shutdown): the window goes at once, the app service closes (chunks in
 * flight commit; the engine cuts them after its grace), then Electron quits. Guarded: a second
 * Quit while closing changes nothing; bounded: a service that does not close in `timeoutMs`
 * (a chunk stuck where no abort reaches) does not hold the app forever. The IPC handler is
 * removed only once every window is gone ('will-quit'), so a page never calls a verb that is
 * no longer there.
 */

/** The part of Electron's `app` this needs (Electron's `app` itself in main.ts). */
export interface QuitApp {
  on(event: 'before-quit' | 'will-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  quit(): void;
}

export interface QuitFlowOptions {
  app: QuitApp;
  /** First step, at once: the tray goes, the window really closes (not to the tray). */
  leave(): void;
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
  /** True from the first quit request on: closing the window then really closes it. */
  readonly quitting: boolean;
  /** Quits as if asked by the OS without 'before-quit' (Windows 'session-end'). */
  quitNow(why: string): void;
}

export function installQuitFlow(opts: QuitFlowOptions): QuitFlow {
  let state: 'running' | 'closing' | 'closed' = 'running';

  const begin = (why: string) => {
    if (state !== 'running') {
      if (state === 'closing') opts.log('info', `quit (${why}) while already closing: waiting for that`);
      return;
    }
    state = 'closing';
    opts.log('info', `quitting (${why})`);
    opts.leave();
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
    begin('quit');
  });
  opts.app.on('will-quit', () => opts.afterWindows());

  return {
    get quitting() {
      return state !== 'running';
    },
    quitNow: (why) => begin(why),
  };
}
