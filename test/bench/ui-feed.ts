/**
 * The UI benchmark's event feed: a WebSocket server on 127.0.0.1 that speaks the headless
 * door's frames (src-main/shared/wire.ts) to the fixture page's real WebSocket bridge, so the
 * page receives, parses and applies pushed batches exactly as it does behind the door.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ClientMessage, ServerMessage } from '../../src-main/shared/wire';

export interface FeedRun {
  /** Batches written to the socket. */
  sent: number;
  /** Batches skipped because the previous one was still waiting in the socket (as the service coalesces). */
  skipped: number;
  /** Size of the last frame, bytes. */
  frameBytes: number;
}

export interface Feed {
  url: string;
  /** Resolves when a page has subscribed to transfers events. */
  subscribed: Promise<void>;
  /** Sends `batch(n)` (the payload's JSON) every `everyMs` for `forMs`, never faster; `onTick` after each. */
  run(options: {
    forMs: number;
    everyMs: number;
    batch: (n: number) => string;
    onTick?: () => Promise<void>;
  }): Promise<FeedRun>;
  close(): Promise<void>;
}

export async function startFeed(): Promise<Feed> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  let socket: WebSocket | null = null;
  const subscribed = new Promise<void>((resolve) => {
    server.on('connection', (ws) => {
      const hello: ServerMessage = { type: 'hello', version: 'bench', door: 'headless' };
      ws.send(JSON.stringify(hello));
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as ClientMessage;
        if (message.type === 'subscribe' && message.events.includes('transfers')) {
          socket = ws;
          resolve();
        }
      });
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    subscribed,
    run: async ({ forMs, everyMs, batch, onTick }) => {
      const ws = socket;
      if (!ws) throw new Error('no page subscribed to the feed');
      const started = Date.now();
      const result: FeedRun = { sent: 0, skipped: 0, frameBytes: 0 };
      for (let n = 0; Date.now() - started < forMs; n++) {
        const due = started + n * everyMs;
        if (ws.bufferedAmount > 0) {
          result.skipped++;
        } else {
          // The door's event frame, written as text around the payload's JSON.
          const frame = `{"type":"event","name":"transfers","payload":${batch(n)}}`;
          ws.send(frame);
          result.sent++;
          result.frameBytes = frame.length;
        }
        await onTick?.();
        const wait = due + everyMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      return result;
    },
    close: async () => {
      for (const ws of server.clients) ws.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
