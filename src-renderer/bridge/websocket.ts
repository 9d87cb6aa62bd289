/**
 * The bridge in a browser (the headless door): one WebSocket carrying the frames of wire.ts.
 *
 * Contract: calls made before the socket opens wait in a queue and go out in order once it
 * opens; when the socket closes, every call still waiting for its reply rejects with a
 * BridgeError('bridge-closed') (the door may or may not have run it, so it is not resent);
 * the bridge then reconnects with a growing delay (0.5 s doubling to 10 s, common/door-rpc.ts) and subscribes
 * again to every event it was listening to.
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
}

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
    if (socket && state === 'open') write(socket, message);
    else if (message.type === 'call') queue.push(message);
  };

  const connect = (): void => {
    timer = null;
    if (disposed) return;
    setState('connecting');
    const ws = open(options.url);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      setState('open');
      if (subscribed.size > 0) write(ws, { type: 'subscribe', events: [...subscribed] });
      const waiting = queue;
      queue = [];
      for (const message of waiting) write(ws, message);
    };
    ws.onmessage = (ev) => core.receive(ev.data);
    ws.onerror = () => undefined; // onclose follows and decides.
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      // Calls still queued were never sent: they stay queued for the next connection.
      core.connectionLost({ error: new BridgeError('bridge-closed', 'The connection to Blocklift closed.') });
      setState('closed');
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
        if (state === 'open') send({ type: 'subscribe', events: [...subscribed] });
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
      socket?.close();
      core.connectionLost({ error: new BridgeError('bridge-closed', 'The bridge was disposed.') }, true);
      queue = [];
    },
  };
}
