/**
 * The bridge in a browser (the headless door): one WebSocket carrying the frames of wire.ts.
 *
 * Contract: calls made before the socket opens wait in a queue and go out in order once it
 * opens; when the socket closes, every call still waiting for its reply rejects with a
 * BridgeError('bridge-closed') (the door may or may not have run it, so it is not resent);
 * the bridge then reconnects with a growing delay (0.5 s doubling to 10 s) and subscribes
 * again to every event it was listening to.
 */
import type { ApiMethod, AppEventName, Result } from '../../src-main/shared/contract';
import type { ClientMessage, ServerMessage } from '../../src-main/shared/wire';
import { BridgeError, Listeners, type Bridge, type BridgeConnection } from './bridge';

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
  /** Delay before reconnect attempt n (0-based), in ms. */
  backoff?: (attempt: number) => number;
}

export const reconnectDelay = (attempt: number): number => Math.min(10_000, 500 * 2 ** attempt);

interface Pending {
  resolve: (result: Result<unknown>) => void;
  reject: (err: Error) => void;
  /** Written to a socket (a close then loses it); false while it waits in the queue. */
  sent: boolean;
}

export function webSocketBridge(options: WebSocketBridgeOptions): Bridge & { dispose(): void } {
  const open = options.open ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
  const backoff = options.backoff ?? reconnectDelay;
  const listeners = new Listeners();
  const connectionListeners = new Set<(state: BridgeConnection) => void>();
  const subscribed = new Set<AppEventName>();
  const pending = new Map<number, Pending>();
  let queue: ClientMessage[] = [];
  let nextId = 1;
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
    if (message.type === 'call') {
      const waiting = pending.get(message.id);
      if (waiting) waiting.sent = true;
    }
  };

  const send = (message: ClientMessage): void => {
    if (socket && state === 'open') write(socket, message);
    else if (message.type === 'call') queue.push(message);
  };

  const onMessage = (data: unknown): void => {
    if (typeof data !== 'string') return;
    const message = JSON.parse(data) as ServerMessage;
    if (message.type === 'reply') {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      waiting?.resolve(message.result);
    } else if (message.type === 'event') {
      listeners.emit(message.name, message.payload);
    }
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
    ws.onmessage = (ev) => onMessage(ev.data);
    ws.onerror = () => undefined; // onclose follows and decides.
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      // Calls still queued were never sent: they stay queued for the next connection.
      for (const [id, p] of pending) {
        if (!p.sent) continue;
        pending.delete(id);
        p.reject(new BridgeError('bridge-closed', 'The connection to Blocklift closed.'));
      }
      setState('closed');
      if (!disposed) timer = setTimeout(connect, backoff(attempt++));
    };
  };

  connect();

  return {
    call: ((method: ApiMethod, input: unknown) =>
      new Promise<Result<unknown>>((resolve, reject) => {
        if (disposed) return reject(new BridgeError('bridge-closed', 'The bridge was disposed.'));
        const id = nextId++;
        pending.set(id, { resolve, reject, sent: false });
        send({ type: 'call', id, method, input });
      })) as Bridge['call'],
    on: (name, listener) => {
      if (!subscribed.has(name)) {
        subscribed.add(name);
        if (state === 'open') send({ type: 'subscribe', events: [...subscribed] });
      }
      return listeners.add(name, listener as (payload: unknown) => void);
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
      for (const p of pending.values()) p.reject(new BridgeError('bridge-closed', 'The bridge was disposed.'));
      pending.clear();
      queue = [];
    },
  };
}
