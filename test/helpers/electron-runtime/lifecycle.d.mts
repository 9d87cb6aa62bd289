import type { EventEmitter } from 'node:events';

export interface StandInEvent {
  defaultPrevented: boolean;
  preventDefault(): void;
}
export function newEvent(): StandInEvent;

export interface LifecycleApp extends EventEmitter {
  emitEvent(name: string, event: StandInEvent, ...args: unknown[]): StandInEvent;
  whenReady(): Promise<void>;
  isReady(): boolean;
  makeReady(): void;
  quit(): void;
  exit(code?: number): void;
  focus(): void;
}
export interface LifecycleWebContents extends EventEmitter {
  /** The page's beforeunload handler (true: refuses the unload); null: the page has none. */
  beforeUnload: (() => boolean) | null;
  reload(): void;
  isDestroyed(): boolean;
}
export interface LifecycleWindow extends EventEmitter {
  readonly options: unknown;
  readonly webContents: LifecycleWebContents;
  readonly visible: boolean;
  loadURL(url: string): Promise<void>;
  show(): void;
  hide(): void;
  focus(): void;
  close(): void;
  destroy(): void;
  isDestroyed(): boolean;
}

export function createLifecycle(opts?: {
  report?: (ev: string, details?: Record<string, unknown>) => void;
  exit?: (code: number) => void;
  watch?: string[];
}): {
  App: new () => LifecycleApp;
  BrowserWindow: { new (options?: unknown): LifecycleWindow; getAllWindows(): LifecycleWindow[] };
  protocol: {
    registerSchemesAsPrivileged(list: Array<{ scheme: string }>): void;
    handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
  };
};
