import WebSocket from 'ws';
import type { ApiMethod, AppEventMessage, Result } from '../../../src-main/shared/contract';
import { API_WS_PATH, TOKEN_COOKIE, type ServerMessage } from '../../../src-main/shared/wire';
import type { DoorClient } from './contract-suite';

/** A WebSocket client of the headless door, as the renderer's bridge talks to it (cookie + own Origin). */
export async function connectWs(doorUrl: string, token: string): Promise<DoorClient & { hello: ServerMessage }> {
  const ws = new WebSocket(`${doorUrl.replace(/^http/, 'ws')}${API_WS_PATH}`, {
    headers: { origin: doorUrl, cookie: `${TOKEN_COOKIE}=${token}` },
  });
  const pending = new Map<number, (r: Result<unknown>) => void>();
  const events: AppEventMessage[] = [];
  const wire: string[] = [];
  const listeners = new Set<() => void>();
  let hello: ServerMessage | undefined;
  const helloSeen = new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.on('message', (data) => {
      const text = String(data);
      wire.push(text);
      const msg = JSON.parse(text) as ServerMessage;
      if (msg.type === 'hello') {
        hello = msg;
        resolve();
      } else if (msg.type === 'reply') {
        pending.get(msg.id)?.(msg.result);
        pending.delete(msg.id);
      } else if (msg.type === 'event') {
        events.push({ name: msg.name, payload: msg.payload } as AppEventMessage);
        for (const l of listeners) l();
      }
    });
  });
  await helloSeen;
  let nextId = 1;
  return {
    hello: hello!,
    events,
    wire,
    call(method: ApiMethod, input: unknown) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        ws.send(JSON.stringify({ type: 'call', id, method, input }));
      });
    },
    onEvent(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
