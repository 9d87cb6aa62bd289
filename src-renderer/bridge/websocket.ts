/**
 * The bridge in a browser (the headless door): one WebSocket carrying the frames of wire.ts.
 *
 * Contract: calls made before the socket opens wait in a queue and go out in order once it
 * opens; when the socket closes, every call still waiting for its reply rejects with a
 * BridgeError('bridge-closed') (the door may or may not have run it, so it is not resent);
 * the bridge then reconnects with a growing delay (0.5 s doubling to 10 s, common/door-rpc.ts) and subscribes
 * again to every event it was listening to.
 *
 * A door that stops answering without closing the socket (its process stuck, or stopped with
 * SIGSTOP: the kernel keeps the connection) is found by a liveness check: after PING_EVERY_MS
 * without a frame the bridge sends a `ping`, which the door answers at once; when nothing at
 * all arrives for STALLED_AFTER_MS the connection is `stalled` (the page says the app is not
 * answering) until the next frame. Calls made meanwhile wait for their replies as before.
 *
 * A socket that closes before it opened may be a door that refuses this page (started again
 * with a new token: the page's cookie is the old one's); the browser does not tell a refused
 * upgrade from a door that is down, so `refused` (an option) asks the door over HTTP, and the
 * connection is `refused` from then until a socket opens.
 */
import { DoorRpcCore, reconnectDelay } from '../../src-main/common/door-rpc';
import type { ApiMethod, AppEventName } from '../../src-main/shared/contract';
import type { ClientMessage } from '../../src-main/shared/wire';
import { BridgeError, type Bridge, type BridgeConnection } from './bridge';

/** The part of the browser's WebSocket this bridge uses (a test may pass its own). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
}

export interface WebSocketBridgeOptions {
  url: string;
  open?: (url: string) => SocketLike;
  /** Delay before reconnect attempt n (0-based), in ms (default: the door clients' reconnectDelay). */
  backoff?: (attempt: number) => number;
  /** Silence after which a ping is sent (default PING_EVERY_MS). */
  pingEveryMs?: number;
  /** Silence after which the connection counts as stalled (default STALLED_AFTER_MS). */
  stalledAfterMs?: number;
  /** Whether the door refuses this page's access (asked when a socket closes before it opened). */
  refused?: () => Promise<boolean>;
}

/** A quiet connection is asked whether the door is there after this long. */
export const PING_EVERY_MS = 4_000;
/** Nothing from the door for this long (a ping unanswered for 6 s or more): it is not answering. */
export const STALLED_AFTER_MS = 10_000;

/**
 * The bridge over the door's RPC client core (src-main/common/door-rpc.ts, which keeps the
 * ids, the calls waiting and the listeners); this adapter adds the browser socket, the queue
 * of calls made while it is closed, and the reconnects.
 */
export function webSocketBridge(options: WebSocketBridgeOptions): Bridge & { dispose(): void } {
  const open = options.open ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
  const backoff = options.backoff ?? reconnectDelay;
  const core = new DoorRpcCore();
  const connectionListeners = new Set<(state: BridgeConnection) => void>();
  const subscribed = new Set<AppEventName>();
  let queue: ClientMessage[] = [];
  let attempt = 0;
  let state: BridgeConnection = 'connecting';
  let socket: SocketLike | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;
  const pingEveryMs = options.pingEveryMs ?? PING_EVERY_MS;
  const stalledAfterMs = options.stalledAfterMs ?? STALLED_AFTER_MS;
  /** When the last frame came from the door (ms, performance.now()). */
  let heardAt = 0;
  let pingId = 0;
  let liveness: ReturnType<typeof setInterval> | null = null;
  const stopLiveness = (): void => {
    if (liveness) clearInterval(liveness);
    liveness = null;
  };
  /** When the last ping went out (one per PING_EVERY_MS of quiet). */
  let pingedAt = 0;
  const checkLiveness = (ws: SocketLike): void => {
    const now = performance.now();
    const quiet = now - heardAt;
    if (quiet >= stalledAfterMs) setState('stalled');
    if (quiet >= pingEveryMs && now - pingedAt >= pingEveryMs) {
      pingedAt = now;
      ws.send(JSON.stringify({ type: 'ping', id: ++pingId } satisfies ClientMessage));
    }
  };

  const setState = (next: BridgeConnection): void => {
    if (next === state) return;
    state = next;
    for (const l of connectionListeners) l(next);
  };

  const write = (ws: SocketLike, message: ClientMessage): void => {
    ws.send(JSON.stringify(message));
    if (message.type === 'call') core.markSent(message.id);
  };

  const send = (message: ClientMessage): void => {
    if (socket && (state === 'open' || state === 'stalled')) write(socket, message);
    else if (message.type === 'call') queue.push(message);
  };

  const connect = (): void => {
    timer = null;
    if (disposed) return;
    // Refused stays refused while the attempts go on: only an open socket ends it.
    if (state !== 'refused') setState('connecting');
    const ws = open(options.url);
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      attempt = 0;
      heardAt = performance.now();
      setState('open');
      stopLiveness();
      // Checked at a fraction of the ping interval, so a ping goes out soon after it is due.
      liveness = setInterval(() => checkLiveness(ws), Math.max(50, Math.min(pingEveryMs, stalledAfterMs) / 4));
      if (subscribed.size > 0) write(ws, { type: 'subscribe', events: [...subscribed] });
      const waiting = queue;
      queue = [];
      for (const message of waiting) write(ws, message);
    };
    ws.onmessage = (ev) => {
      heardAt = performance.now();
      if (state === 'stalled') setState('open');
      core.receive(ev.data);
    };
    ws.onerror = () => undefined; // onclose follows and decides.
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      stopLiveness();
      // Calls still queued were never sent: they stay queued for the next connection.
      core.connectionLost({ error: new BridgeError('bridge-closed', 'The connection to Blocklift closed.') });
      if (state !== 'refused') setState('closed');
      if (!opened && state !== 'refused' && options.refused && !disposed)
        void options.refused().then(
          (refused) => {
            if (refused && !disposed && socket === null) setState('refused');
          },
          () => undefined, // not known: stays closed, asked again at the next failed attempt
        );
      if (!disposed) timer = setTimeout(connect, backoff(attempt++));
    };
  };

  connect();

  return {
    call: ((method: ApiMethod, input: unknown) => {
      if (disposed) return Promise.reject(new BridgeError('bridge-closed', 'The bridge was disposed.'));
      const { frame, reply } = core.call(method, input);
      send(frame);
      return reply;
    }) as Bridge['call'],
    on: (name, listener) => {
      if (!subscribed.has(name)) {
        subscribed.add(name);
        if (state === 'open' || state === 'stalled') send({ type: 'subscribe', events: [...subscribed] });
      }
      return core.events.on(name, listener as (payload: unknown) => void);
    },
    pathForFile: () => '',
    connection: () => state,
    onConnection: (listener) => {
      connectionListeners.add(listener);
      return () => connectionListeners.delete(listener);
    },
    dispose: () => {
      disposed = true;
      if (timer) clearTimeout(timer);
      stopLiveness();
      socket?.close();
      core.connectionLost({ error: new BridgeError('bridge-closed', 'The bridge was disposed.') }, true);
      queue = [];
    },
  };
}
