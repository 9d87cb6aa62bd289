import { ipcMain, type IpcMainEvent, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { callFromDoor, failure, type DoorBackend } from '../service/door-backend';
import type { Result } from '../shared/contract';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, IPC_UNSENT_CHANNEL } from '../shared/wire';

/** The origin the app's pages are served from (protocol.ts); no other page may call the app. */
export const APP_SCHEME = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://renderer`;

export interface IpcDoor {
  /** Lets this window's page call the app and receive its events. */
  attach(contents: WebContents): void;
  /** How many review decisions this window's page last said it holds unsaved (0 until it says). */
  unsent(contents: WebContents): number;
  /** Hears each new count a page reports; returns the unsubscribe function. */
  onUnsent(listener: (contents: WebContents, count: number) => void): () => void;
  /** Removes the handler and stops forwarding events. */
  dispose(): void;
}

/**
 * Whether an IPC message comes from the app's own page: the main frame (not an iframe) of
 * a window this door attached, showing a page of APP_ORIGIN.
 */
export function isAppFrame(
  event: Pick<IpcMainInvokeEvent | IpcMainEvent, 'sender' | 'senderFrame'>,
  attached: ReadonlySet<WebContents>,
): boolean {
  const frame = event.senderFrame;
  if (!frame || frame.parent !== null || !attached.has(event.sender)) return false;
  return frame.url === APP_ORIGIN || frame.url.startsWith(`${APP_ORIGIN}/`);
}

/**
 * The contract over Electron IPC: ONE invoke handler on IPC_CALL_CHANNEL that routes by
 * method name through the backend's invoke (every verb of API_METHODS, nothing else),
 * and every event batch sent on IPC_EVENT_CHANNEL to the attached windows. A call from any
 * other frame gets a refusal and reaches no verb. The page's count of unsaved review decisions
 * (IPC_UNSENT_CHANNEL, a send) is kept per window, from the same frames only.
 */
export function registerIpcDoor(backend: DoorBackend): IpcDoor {
  const attached = new Set<WebContents>();
  ipcMain.handle(IPC_CALL_CHANNEL, async (event, method: unknown, input: unknown): Promise<Result<unknown>> => {
    if (!isAppFrame(event, attached))
      return failure('invalid-input', 'Calls are accepted from the app’s own page only.', { detail: 'sender' });
    return callFromDoor(backend, method, input);
  });
  const unsent = new Map<WebContents, number>();
  const unsentListeners = new Set<(contents: WebContents, count: number) => void>();
  const onUnsent = (event: IpcMainEvent, count: unknown) => {
    if (!isAppFrame(event, attached) || !Number.isSafeInteger(count) || (count as number) < 0) return;
    unsent.set(event.sender, count as number);
    for (const l of unsentListeners) l(event.sender, count as number);
  };
  ipcMain.on(IPC_UNSENT_CHANNEL, onUnsent);
  const unsubscribe = backend.on((e) => {
    for (const contents of attached) if (!contents.isDestroyed()) contents.send(IPC_EVENT_CHANNEL, e.name, e.payload);
  });
  return {
    attach(contents) {
      attached.add(contents);
      contents.once('destroyed', () => {
        attached.delete(contents);
        unsent.delete(contents);
      });
    },
    unsent: (contents) => unsent.get(contents) ?? 0,
    onUnsent(listener) {
      unsentListeners.add(listener);
      return () => unsentListeners.delete(listener);
    },
    dispose() {
      unsubscribe();
      ipcMain.removeHandler(IPC_CALL_CHANNEL);
      ipcMain.removeListener(IPC_UNSENT_CHANNEL, onUnsent);
      attached.clear();
      unsent.clear();
      unsentListeners.clear();
    },
  };
}
