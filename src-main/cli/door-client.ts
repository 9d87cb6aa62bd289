import WebSocket from 'ws';
import type { AppApi, AppError, AppEventMessage, Result } from '../shared/contract';
import { API_WS_PATH, type ClientMessage, type ServerMessage } from '../shared/wire';
import { liveDoor, type DoorInfo } from '../service/door-file';
import { apiOfCalls } from './api-of-calls';

/**
 * The command line as a client of a running app's headless door (`blocklift serve`): the
 * contract's verbs as WebSocket `call` frames (shared/wire.ts), the event batches as they
 * are pushed. Same shape as the in-process AppService (AppApi plus `on`), so a command does
 * not care which one it talks to. Verbs never reject: a connection lost before the reply
 * answers `service-unreachable`.
 */
export interface DoorClient extends AppApi {
  /** The running app's door (http://127.0.0.1:<port>). */
  readonly url: string;
  on(listener: (e: AppEventMessage) => void): () => void;
  /** Called once if the app closes the connection (it stopped) before close(). */
  onLost(listener: () => void): void;
  close(): Promise<void>;
}

/** How long a door file's app may take to answer before it counts as stale. */
const CONNECT_TIMEOUT_MS = 15_000;

/**
 * The running app of this data folder and database, connected; undefined when none runs
 * (no door file, its process is gone, or its door does not answer: a stale file is ignored).
 */
export async function connectRunningApp(dataDir: string, dbFile: string): Promise<DoorClient | undefined> {
  const door = liveDoor(dataDir, dbFile);
  if (!door) return undefined;
  try {
    return await connectDoor(door);
  } catch {
    return undefined;
  }
}

/** Opens the WebSocket of a door with its token and waits for its hello; rejects when it does not answer. */
export function connectDoor(
  door: Pick<DoorInfo, 'url' | 'token'>,
  timeoutMs = CONNECT_TIMEOUT_MS,
): Promise<DoorClient> {
  const ws = new WebSocket(`${door.url.replace(/^http/, 'ws')}${API_WS_PATH}`, {
    headers: { authorization: `Bearer ${door.token}` },
    origin: door.url,
    handshakeTimeout: timeoutMs,
  });
  return new Promise<DoorClient>((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`the app at ${door.url} did not answer`));
    }, timeoutMs);
    ws.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    ws.once('message', (data) => {
      clearTimeout(timer);
      let hello: ServerMessage | undefined;
      try {
        hello = JSON.parse(String(data)) as ServerMessage;
      } catch {
        hello = undefined;
      }
      if (hello?.type !== 'hello') {
        ws.terminate();
        reject(new Error(`the app at ${door.url} did not greet as a Blocklift door`));
        return;
      }
      resolve(clientOver(ws, door.url));
    });
  });
}

function clientOver(ws: WebSocket, url: string): DoorClient {
  const pending = new Map<number, (r: Result<unknown>) => void>();
  const listeners = new Set<(e: AppEventMessage) => void>();
  const lost = new Set<() => void>();
  let nextId = 1;
  let closing = false;
  const unreachable = (reason: string): { ok: false; error: AppError } => ({
    ok: false,
    error: {
      code: 'service-unreachable',
      message: `The running Blocklift app at ${url} cannot be reached: ${reason}`,
      params: { url, reason },
    },
  });
  ws.on('error', () => undefined); // 'close' follows and settles what waits.
  ws.on('message', (data) => {
    let msg: ServerMessage;
    try {
      msg = JSON.parse(String(data)) as ServerMessage;
    } catch {
      return;
    }
    if (msg.type === 'reply') {
      pending.get(msg.id)?.(msg.result);
      pending.delete(msg.id);
    } else if (msg.type === 'event') {
      const e = { name: msg.name, payload: msg.payload } as AppEventMessage;
      for (const l of listeners) l(e);
    }
  });
  ws.on('close', () => {
    for (const settle of pending.values()) settle(unreachable('the connection closed (did the app stop?)'));
    pending.clear();
    if (!closing) for (const l of lost) l();
  });
  const call = (method: string, input: unknown): Promise<Result<unknown>> =>
    new Promise((resolve) => {
      if (ws.readyState !== WebSocket.OPEN) return resolve(unreachable('the connection is closed'));
      const id = nextId++;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ type: 'call', id, method, input } as ClientMessage));
    });
  const areas = apiOfCalls(call);
  return {
    ...areas,
    url,
    on: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onLost: (listener) => {
      lost.add(listener);
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
