import { section } from '../base/loop-watch';
import type { WebSocket } from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { callFromDoor, refusal, type DoorBackend } from '../service/door-backend';
import { API_METHODS, APP_EVENT_NAMES, type AppEventMessage, type AppEventName } from '../shared/contract';
import { API_HTTP_PREFIX, API_WS_PATH, type ClientMessage, type ServerMessage } from '../shared/wire';
import { originAllowed } from './access';

export interface ApiRouteOptions {
  backend: DoorBackend;
  version: string;
  /** Origins besides the door's own that may open the WebSocket (the dev renderer). */
  devOrigins: readonly string[];
}

/**
 * The contract over HTTP and WebSocket, both derived from API_METHODS (no list of its own):
 * - POST /api/<method> with the input as JSON body (none for a `void` input) → the Result as JSON, status 200.
 * - GET /api/ws (upgrade): `hello` first; `call` frames get a `reply` with the same id;
 *   every event batch is pushed as an `event` frame (all names, or those of the last `subscribe`).
 */
export async function registerApiRoutes(app: FastifyInstance, opts: ApiRouteOptions): Promise<void> {
  for (const method of API_METHODS) {
    app.post(`${API_HTTP_PREFIX}${method}`, async (req) =>
      section(`api:${method}`, () => callFromDoor(opts.backend, method, req.body ?? undefined)),
    );
  }
  app.get(
    API_WS_PATH,
    {
      websocket: true,
      preValidation: async (req, reply) => {
        if (!originAllowed(req.headers.origin, req.headers.host, opts.devOrigins))
          await reply
            .code(403)
            .send(refusal('door-origin-refused', { origin: String(req.headers.origin ?? '(none)').slice(0, 200) }));
      },
    },
    (socket) => serveSocket(socket, opts),
  );
}

function send(socket: WebSocket, msg: ServerMessage): void {
  if (socket.readyState === socket.OPEN) section(`ws:${msg.type}`, () => socket.send(JSON.stringify(msg)));
}

function serveSocket(socket: WebSocket, opts: ApiRouteOptions): void {
  let wanted: ReadonlySet<AppEventName> = new Set(APP_EVENT_NAMES);
  const unsubscribe = opts.backend.on((e: AppEventMessage) => {
    if (wanted.has(e.name)) send(socket, { type: 'event', name: e.name, payload: e.payload } as ServerMessage);
  });
  socket.on('close', unsubscribe);
  socket.on('error', () => socket.terminate());
  send(socket, { type: 'hello', version: opts.version, door: 'headless' });
  socket.on('message', (data, isBinary) => {
    const msg = isBinary ? undefined : parseClientMessage(String(data));
    if (!msg) {
      socket.close(1003, 'frames are JSON ClientMessage objects');
      return;
    }
    if (msg.type === 'subscribe') {
      wanted = new Set(msg.events.filter((n) => APP_EVENT_NAMES.includes(n)));
      return;
    }
    if (msg.type === 'ping') {
      send(socket, { type: 'pong', id: msg.id });
      return;
    }
    void callFromDoor(opts.backend, msg.method, msg.input).then((result) =>
      send(socket, { type: 'reply', id: msg.id, result }),
    );
  });
}

/** A client frame as read: a call's method is still unchecked (the backend answers 'unknown-method'). */
export type ParsedClientMessage =
  | { type: 'call'; id: number; method: unknown; input: unknown }
  | Extract<ClientMessage, { type: 'subscribe' | 'ping' }>;

/** A frame the door understands, or undefined. */
export function parseClientMessage(text: string): ParsedClientMessage | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const m = v as Record<string, unknown>;
  if (m.type === 'call' && typeof m.id === 'number' && Number.isFinite(m.id))
    return { type: 'call', id: m.id, method: m.method, input: m.input };
  if (m.type === 'subscribe' && Array.isArray(m.events) && m.events.every((e) => typeof e === 'string'))
    return { type: 'subscribe', events: m.events as AppEventName[] };
  if (m.type === 'ping' && typeof m.id === 'number' && Number.isFinite(m.id)) return { type: 'ping', id: m.id };
  return undefined;
}
