import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientMessage, ServerMessage } from '../../../src-main/shared/wire';
import { BridgeError } from '../../../src-renderer/bridge/bridge';
import { reconnectDelay } from '../../../src-main/common/door-rpc';
import {
  PING_EVERY_MS,
  STALLED_AFTER_MS,
  webSocketBridge,
  type SocketLike,
} from '../../../src-renderer/bridge/websocket';

/** A socket the test opens, answers and closes by hand (what a browser WebSocket would do). */
class TestSocket implements SocketLike {
  readyState = 0;
  sent: ClientMessage[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  send(data: string) {
    this.sent.push(JSON.parse(data) as ClientMessage);
  }
  close() {
    this.readyState = 3;
    this.onclose?.({});
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(message: ServerMessage) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
}

function setup(refused?: () => Promise<boolean>) {
  const sockets: TestSocket[] = [];
  const bridge = webSocketBridge({
    url: 'ws://127.0.0.1/api/ws',
    open: () => {
      const s = new TestSocket();
      sockets.push(s);
      return s;
    },
    backoff: () => 0,
    ...(refused ? { refused } : {}),
  });
  return { bridge, sockets };
}

describe('WebSocket bridge', () => {
  it('queues calls until the socket opens, then sends them in order and resolves each with its reply', async () => {
    const { bridge, sockets } = setup();
    const first = bridge.call('app.status', undefined);
    const second = bridge.call('transfers.get', { id: 4 });
    expect(sockets[0]!.sent).toEqual([]);
    sockets[0]!.open();
    expect(sockets[0]!.sent.map((m) => m.type === 'call' && m.method)).toEqual(['app.status', 'transfers.get']);
    const [a, b] = sockets[0]!.sent as Array<Extract<ClientMessage, { type: 'call' }>>;
    sockets[0]!.receive({
      type: 'reply',
      id: b!.id,
      result: { ok: false, error: { code: 'not-found', message: 'no', params: {} } },
    });
    sockets[0]!.receive({ type: 'reply', id: a!.id, result: { ok: true, value: { version: 'x' } } });
    await expect(first).resolves.toMatchObject({ ok: true, value: { version: 'x' } });
    await expect(second).resolves.toMatchObject({ ok: false, error: { code: 'not-found' } });
    bridge.dispose();
  });

  it('rejects calls in flight with bridge-closed on close, keeps unsent ones, reconnects and resubscribes', async () => {
    const { bridge, sockets } = setup();
    const events: unknown[] = [];
    bridge.on('transfers', (batch) => events.push(batch));
    sockets[0]!.open();
    expect(sockets[0]!.sent).toEqual([{ type: 'subscribe', events: ['transfers'] }]);
    const inFlight = bridge.call('app.status', undefined);
    const states: string[] = [];
    bridge.onConnection((s) => states.push(s));
    sockets[0]!.close();
    await expect(inFlight).rejects.toBeInstanceOf(BridgeError);
    await expect(inFlight).rejects.toMatchObject({ code: 'bridge-closed' });
    const queued = bridge.call('settings.get', undefined);
    await expect.poll(() => sockets.length).toBe(2);
    sockets[1]!.open();
    expect(states).toEqual(['closed', 'connecting', 'open']);
    expect(sockets[1]!.sent[0]).toEqual({ type: 'subscribe', events: ['transfers'] });
    const call = sockets[1]!.sent[1] as Extract<ClientMessage, { type: 'call' }>;
    expect(call.method).toBe('settings.get');
    sockets[1]!.receive({ type: 'reply', id: call.id, result: { ok: true, value: 1 } });
    await expect(queued).resolves.toEqual({ ok: true, value: 1 });
    const payload = { changed: [], removed: [], progress: [], totals: {}, throughput: 5 };
    sockets[1]!.receive({ type: 'event', name: 'transfers', payload } as unknown as ServerMessage);
    expect(events).toEqual([payload]);
    bridge.dispose();
  });

  it('a door that refuses the page (started again, new token) is refused, not "reconnecting", until a socket opens', async () => {
    let refuses = true;
    const asked: number[] = [];
    const { bridge, sockets } = setup(() => {
      asked.push(sockets.length);
      return Promise.resolve(refuses);
    });
    sockets[0]!.open();
    const states: string[] = [];
    bridge.onConnection((s) => states.push(s));
    // The door stops: a socket that had opened is not a refusal; the next attempt fails before opening.
    sockets[0]!.close();
    expect(asked).toEqual([]);
    await expect.poll(() => sockets.length).toBe(2);
    sockets[1]!.close();
    await expect.poll(() => bridge.connection()).toBe('refused');
    expect(asked).toEqual([2]);
    // It stays refused while the attempts go on (no "connecting" in between), and asks no more.
    for (let n = 3; n <= 5; n++) {
      await expect.poll(() => sockets.length).toBe(n);
      expect(bridge.connection()).toBe('refused');
      sockets[n - 1]!.close();
    }
    // The person opened the printed address: the next socket opens.
    refuses = false;
    await expect.poll(() => sockets.length).toBe(6);
    sockets[5]!.open();
    expect(bridge.connection()).toBe('open');
    expect(asked).toEqual([2]);
    expect(states.filter((s, i) => s !== states[i - 1])).toEqual(['closed', 'connecting', 'closed', 'refused', 'open']);
    bridge.dispose();
  });

  it('a door that is down (nothing answers the question either) is only closed', async () => {
    const { bridge, sockets } = setup(() => Promise.reject(new TypeError('Failed to fetch')));
    for (let n = 1; n <= 3; n++) {
      await expect.poll(() => sockets.length).toBe(n);
      sockets[n - 1]!.close();
      await new Promise((r) => setTimeout(r, 0));
      expect(['closed', 'connecting']).toContain(bridge.connection());
    }
    bridge.dispose();
  });

  it('waits longer between attempts, up to 10 s', () => {
    expect([0, 1, 2, 3, 10].map(reconnectDelay)).toEqual([500, 1000, 2000, 4000, 10_000]);
  });
});

/** On vitest's fake clock: the liveness check's timers and performance.now() move only when the test says. */
describe('WebSocket bridge: a door that stops answering', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pings a quiet door, says stalled when nothing comes back, and open again at its next frame', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
    const { bridge, sockets } = setup();
    const s = sockets[0]!;
    const states: string[] = [];
    bridge.onConnection((c) => states.push(c));
    s.open();
    const pings = () => s.sent.filter((m) => m.type === 'ping');
    // A door that answers: a ping after PING_EVERY_MS of quiet, its pong keeps the page open.
    await vi.advanceTimersByTimeAsync(PING_EVERY_MS + 1_000);
    expect(pings().length).toBe(1);
    s.receive({ type: 'pong', id: (pings()[0] as { id: number }).id });
    await vi.advanceTimersByTimeAsync(STALLED_AFTER_MS - 1_000);
    expect(states).toEqual(['open']);
    // Now it stops answering (SIGSTOP): stalled once STALLED_AFTER_MS pass with nothing.
    await vi.advanceTimersByTimeAsync(2_000);
    expect(states).toEqual(['open', 'stalled']);
    expect(bridge.connection()).toBe('stalled');
    // A call made meanwhile goes out at once, and waits for its reply.
    const call = bridge.call('app.status', undefined);
    const sent = s.sent.filter((m) => m.type === 'call') as Array<Extract<ClientMessage, { type: 'call' }>>;
    expect(sent.map((m) => m.method)).toEqual(['app.status']);
    // It comes back (SIGCONT): its next frame, whatever it is, makes the connection open again.
    s.receive({ type: 'reply', id: sent[0]!.id, result: { ok: true, value: { version: 'x' } } });
    await expect(call).resolves.toMatchObject({ ok: true });
    expect(states).toEqual(['open', 'stalled', 'open']);
    bridge.dispose();
  });

  it('a door that keeps sending events is never pinged nor stalled', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
    const { bridge, sockets } = setup();
    const s = sockets[0]!;
    s.open();
    for (let i = 0; i < 30; i++) {
      await vi.advanceTimersByTimeAsync(1_000);
      s.receive({ type: 'event', name: 'batchFinished', payload: { done: i, failed: 0, skipped: 0, canceled: 0 } });
    }
    expect(s.sent.filter((m) => m.type === 'ping')).toEqual([]);
    expect(bridge.connection()).toBe('open');
    bridge.dispose();
  });
});
