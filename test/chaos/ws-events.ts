import WebSocket from 'ws';
import { API_WS_PATH, TOKEN_COOKIE, type ServerMessage } from '../../src-main/shared/wire';
import type { ServeChild } from './serve-rig';

/** One event frame of the door's WebSocket, with when it arrived. */
export interface SeenEvent {
  name: string;
  payload: unknown;
  at: number;
}

/** The UI's side of `blocklift serve`: a WebSocket on /api/ws (cookie and own Origin, as the page sends) that keeps every event. */
export interface UiStream {
  events: SeenEvent[];
  /** Bytes of every frame received. */
  bytes: number;
  close(): Promise<void>;
}

export async function connectUi(s: ServeChild): Promise<UiStream> {
  const ws = new WebSocket(`${s.base.replace(/^http/, 'ws')}${API_WS_PATH}`, {
    headers: { origin: s.base, cookie: `${TOKEN_COOKIE}=${s.token}` },
  });
  const ui: UiStream = {
    events: [],
    bytes: 0,
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.on('message', (data) => {
      const text = String(data);
      ui.bytes += text.length;
      const msg = JSON.parse(text) as ServerMessage;
      if (msg.type === 'hello') resolve();
      else if (msg.type === 'event') ui.events.push({ name: msg.name, payload: msg.payload, at: Date.now() });
    });
  });
  return ui;
}
