import WebSocket from 'ws';
import { DoorRpcCore } from '../common/door-rpc';
import type { ApiMethod, AppApi, AppError, AppEventMessage, Result } from '../shared/contract';
import { API_WS_PATH } from '../shared/wire';
import { liveDoor, type DoorInfo } from '../service/door-file';
import { apiOfCalls } from './api-of-calls';
import { CliError } from './cli-error';

/**
 * The command line as a client of a running app's headless door (`blocklift serve`): the
 * contract's verbs as WebSocket `call` frames (shared/wire.ts), the event batches as they
 * are pushed. Same shape as the in-process AppService (AppApi plus `on`), so a command does
 * not care which one it talks to. Verbs never reject: a connection lost before the reply
 * answers `service-unreachable`. Ids, replies and events are the door's RPC client core
 * (common/door-rpc.ts, the renderer's bridge uses it too): a listener that throws does not
 * stop the others nor the frames after it. It neither queues nor reconnects: a command ends
 * when the app it talks to stops.
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
 * (no door file, its process is gone, or its port refuses or is not a Blocklift door: a
 * stale file is ignored). Throws a CliError when the app's process lives and its door takes
 * the connection but does not answer within `timeoutMs`.
 */
export async function connectRunningApp(
  dataDir: string,
  dbFile: string,
  timeoutMs = CONNECT_TIMEOUT_MS,
): Promise<DoorClient | undefined> {
  const door = liveDoor(dataDir, dbFile);
  if (!door) return undefined;
  try {
    return await connectDoor(door, timeoutMs);
  } catch (e) {
    // Something listens on its port and its process lives, but it does not answer: the app
    // is stuck (or stopped with SIGSTOP). It still holds the queue, so working here instead
    // would fail on that, or ask for credentials the app has: say what is going on.
    if (e instanceof DoorSilent)
      throw new CliError(
        `the Blocklift app running on this data folder (process ${door.pid}, ${door.url}) did not answer within ${Math.round(
          timeoutMs / 1000,
        )} s: it may be stuck. Try again in a moment, or stop that process and run the command again.`,
        1,
        'app-not-answering',
      );
    return undefined; // refused, or not a Blocklift door: a stale door file
  }
}

/** A door that accepted the connection but sent no greeting in time. */
class DoorSilent extends Error {}

/** Opens the WebSocket of a door with its token and waits for its hello; rejects when it does not answer. */
export function connectDoor(
  door: Pick<DoorInfo, 'url' | 'token'>,
  timeoutMs = CONNECT_TIMEOUT_MS,
): Promise<DoorClient> {
  const ws = new WebSocket(`${door.url.replace(/^http/, 'ws')}${API_WS_PATH}`, {
    headers: { authorization: `Bearer ${door.token}` },
    origin: door.url,
    // Longer than the timer below, which is what decides that a door is silent.
    handshakeTimeout: timeoutMs + 5_000,
  });
  const core = new DoorRpcCore();
  return new Promise<DoorClient>((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new DoorSilent(`the app at ${door.url} did not answer`));
    }, timeoutMs);
    ws.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    ws.once('message', (data) => {
      clearTimeout(timer);
      if (core.receive(String(data))?.type !== 'hello') {
        ws.terminate();
        reject(new Error(`the app at ${door.url} did not greet as a Blocklift door`));
        return;
      }
      resolve(clientOver(ws, door.url, core));
    });
  });
}

function clientOver(ws: WebSocket, url: string, core: DoorRpcCore): DoorClient {
  const lost = new Set<() => void>();
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
  ws.on('message', (data) => core.receive(String(data)));
  ws.on('close', () => {
    core.connectionLost({ result: unreachable('the connection closed (did the app stop?)') }, true);
    if (!closing) for (const l of lost) l();
  });
  const call = (method: string, input: unknown): Promise<Result<unknown>> => {
    if (ws.readyState !== WebSocket.OPEN) return Promise.resolve(unreachable('the connection is closed'));
    const { frame, reply } = core.call(method as ApiMethod, input);
    ws.send(JSON.stringify(frame));
    core.markSent(frame.id);
    return reply;
  };
  const areas = apiOfCalls(call);
  return {
    ...areas,
    url,
    on: (listener) => core.events.onAny(listener),
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
