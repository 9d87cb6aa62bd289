/**
 * The door's RPC client core, shared by the two clients of the headless door's WebSocket
 * (the renderer's bridge in a browser, src-renderer/bridge/websocket.ts, and the command
 * line's door client, src-main/cli/door-client.ts). It owns what does not depend on the
 * socket: request ids, the calls waiting for their reply, the dispatch of pushed events to
 * listeners, and the reconnect delay. Each client adapts it to its socket (and decides
 * whether it queues calls while closed and reconnects: the bridge does, the CLI does not).
 *
 * Frames are shared/wire.ts's. A listener that throws does not stop the others nor the
 * reading of frames: its error goes to onUnexpectedError (common/emitter.ts).
 */
import type { ApiMethod, AppEventMessage, AppEventName, Result } from '../shared/contract';
import type { ClientMessage, ServerMessage } from '../shared/wire';
import { backoffMs, type Backoff } from './backoff';
import { Emitter, type Unsubscribe } from './emitter';

/** A client's reconnects: 0.5 s, doubling, at most 10 s. */
export const RECONNECT_BACKOFF: Backoff = { baseMs: 500, maxMs: 10_000 };

/** Delay before reconnect attempt n (0-based), in ms. */
export const reconnectDelay = (attempt: number): number => backoffMs(attempt, RECONNECT_BACKOFF);

/** How a call that lost its connection ends: with a Result (the CLI) or a rejection (the bridge). */
export type CallEnd = { result: Result<unknown> } | { error: Error };

type CallFrame = Extract<ClientMessage, { type: 'call' }>;

interface Pending {
  resolve: (result: Result<unknown>) => void;
  reject: (err: Error) => void;
  /** Written to a socket (a close then loses it); false while it waits to be written. */
  sent: boolean;
}

/** Listeners by event name and of every event. */
export class EventDispatch {
  private readonly byName = new Map<AppEventName, Emitter<unknown>>();
  private readonly all = new Emitter<AppEventMessage>('door event listener');

  /** Listens to one event; returns the unsubscribe function. */
  on(name: AppEventName, listener: (payload: unknown) => void): Unsubscribe {
    let emitter = this.byName.get(name);
    if (!emitter) this.byName.set(name, (emitter = new Emitter<unknown>(`listener of ${name}`)));
    return emitter.add(listener);
  }

  /** Listens to every event. */
  onAny(listener: (event: AppEventMessage) => void): Unsubscribe {
    return this.all.add(listener);
  }

  emit(name: AppEventName, payload: unknown): void {
    this.byName.get(name)?.emit(payload);
    this.all.emit({ name, payload } as AppEventMessage);
  }
}

export class DoorRpcCore {
  readonly events = new EventDispatch();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  /**
   * A new call: its frame (for the client to write now or later, then `markSent`) and the
   * promise of its reply.
   */
  call(method: ApiMethod, input: unknown): { frame: CallFrame; reply: Promise<Result<unknown>> } {
    const id = this.nextId++;
    const reply = new Promise<Result<unknown>>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, sent: false });
    });
    return { frame: { type: 'call', id, method, input }, reply };
  }

  /** The frame of call `id` was written to a socket: losing that socket now loses the call. */
  markSent(id: number): void {
    const waiting = this.pending.get(id);
    if (waiting) waiting.sent = true;
  }

  /**
   * Reads one frame from the door: a reply settles its call, an event goes to its listeners.
   * Returns the message (the caller may want the hello), or undefined for what is not JSON text.
   */
  receive(data: unknown): ServerMessage | undefined {
    if (typeof data !== 'string') return undefined;
    let message: ServerMessage;
    try {
      message = JSON.parse(data) as ServerMessage;
    } catch {
      return undefined;
    }
    if (message.type === 'reply') {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      waiting?.resolve(message.result);
    } else if (message.type === 'event') {
      this.events.emit(message.name, message.payload);
    }
    return message;
  }

  /**
   * The connection closed: every call written to it ends with `end` (the door may or may not
   * have run it, so it is not resent). Calls not yet written keep waiting; `all` ends them too.
   */
  connectionLost(end: CallEnd, all = false): void {
    for (const [id, p] of this.pending) {
      if (!p.sent && !all) continue;
      this.pending.delete(id);
      if ('error' in end) p.reject(end.error);
      else p.resolve(end.result);
    }
  }
}
