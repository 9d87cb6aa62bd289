import type { ApiMethod, AppEventName, Result } from '../src-main/shared/contract';
import { API_WS_PATH, PRELOAD_GLOBAL, type PreloadApi, type ServerMessage } from '../src-main/shared/wire';

/** The two ways a page reaches the app: Electron's preload, or the headless door's WebSocket. */
export interface DoorClient {
  call(method: ApiMethod, input: unknown): Promise<Result<unknown>>;
  subscribe(listener: (name: AppEventName, payload: unknown) => void): () => void;
}

function preloadDoor(api: PreloadApi): DoorClient {
  return { call: (m, i) => api.invoke(m, i), subscribe: (l) => api.subscribe(l) };
}

/** The headless door: one WebSocket, calls matched to replies by id, events fanned out. */
function webSocketDoor(): DoorClient {
  const url = new URL(API_WS_PATH, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(url);
  const open = new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error('the door refused the connection')), { once: true });
  });
  const pending = new Map<number, (r: Result<unknown>) => void>();
  const listeners = new Set<(name: AppEventName, payload: unknown) => void>();
  let nextId = 1;
  socket.addEventListener('message', (e: MessageEvent<string>) => {
    const msg = JSON.parse(e.data) as ServerMessage;
    if (msg.type === 'reply') {
      pending.get(msg.id)?.(msg.result);
      pending.delete(msg.id);
    } else if (msg.type === 'event') for (const l of listeners) l(msg.name, msg.payload);
  });
  const failure = (message: string): Result<unknown> => ({
    ok: false,
    error: { code: 'internal', message, params: {} },
  });
  return {
    async call(method, input) {
      try {
        await open;
      } catch (e) {
        return failure((e as Error).message);
      }
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        socket.send(JSON.stringify({ type: 'call', id, method, input }));
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export function connectDoor(): DoorClient {
  const preload = (window as unknown as Record<string, PreloadApi | undefined>)[PRELOAD_GLOBAL];
  return preload ? preloadDoor(preload) : webSocketDoor();
}
