/**
 * How the contract (contract.ts) travels between a front end and a door. Types and
 * constants only; the headless door, the Electron preload and the renderer bridge all
 * follow this file, so none of them keeps a channel list of its own.
 */
import type { ApiMethod, AppEventName, AppEvents, Result } from './contract';

/** Headless door: POST `${API_HTTP_PREFIX}<method>` with the input as the JSON body → a Result. */
export const API_HTTP_PREFIX = '/api/';
/** Headless door: the WebSocket endpoint (request/reply and events). */
export const API_WS_PATH = '/api/ws';
/** Headless door: the access token's query parameter (first visit) and cookie (after). */
export const TOKEN_QUERY = 'token';
export const TOKEN_COOKIE = 'blocklift_token';

/** Renderer → door, one JSON text frame each. */
export type ClientMessage =
  | { type: 'call'; id: number; method: ApiMethod; input: unknown }
  /** Which events to receive (default: all). */
  | { type: 'subscribe'; events: AppEventName[] }
  /** Are you there? The door answers `pong` with the same id at once (the page's liveness check). */
  | { type: 'ping'; id: number };

/** Door → renderer, one JSON text frame each. */
export type ServerMessage =
  | { type: 'hello'; version: string; door: 'electron' | 'headless' }
  | { type: 'reply'; id: number; result: Result<unknown> }
  | { type: 'pong'; id: number }
  | { [N in AppEventName]: { type: 'event'; name: N; payload: AppEvents[N] } }[AppEventName];

/** Electron door: the preload exposes this object as `window[PRELOAD_GLOBAL]`, and nothing else. */
export const PRELOAD_GLOBAL = 'blocklift';
/** Electron door: the IPC channel of calls (invoke) and of pushed events. */
export const IPC_CALL_CHANNEL = 'blocklift:call';
export const IPC_EVENT_CHANNEL = 'blocklift:event';
/**
 * Electron door: the page → main message (send, no reply) saying how many review decisions the
 * page holds that are not saved yet, each time that number changes. The main process names
 * the number when it asks before the window goes (electron/close-guard.ts).
 */
export const IPC_UNSENT_CHANNEL = 'blocklift:unsent';

export interface PreloadApi {
  /** Calls one verb; resolves to its Result (never rejects for a refused call). */
  invoke(method: ApiMethod, input: unknown): Promise<Result<unknown>>;
  /** Receives every pushed event; returns the unsubscribe function. */
  subscribe(listener: (name: AppEventName, payload: unknown) => void): () => void;
  /** The local path of a dropped File (Electron's webUtils.getPathForFile); '' when it has none. */
  pathForFile(file: unknown): string;
  /** Tells the main process how many review decisions are not saved yet (IPC_UNSENT_CHANNEL). */
  reportUnsent(count: number): void;
}

/**
 * Headless door only (a browser page has no local paths): files dropped in the page are
 * staged on the server, then queued. POST DOOR_STAGE_PATH → Result<{ batch }>; PUT
 * `${DOOR_STAGE_PATH}/<batch>/<relative path, URI-encoded per segment>` with the bytes as
 * body → Result<{ staged: true }>; POST DOOR_STAGE_COMMIT_PATH { batch, target, options? } →
 * the Result of transfers.add over the batch (keys are the relative paths).
 */
export const DOOR_STAGE_PATH = '/api/door/stage';
export const DOOR_STAGE_COMMIT_PATH = '/api/door/stage-commit';
/** Headless door: POST { path? } → Result<FolderListing>; the user's home and below only ("add by path"). */
export const DOOR_BROWSE_PATH = '/api/door/browse';

export type { FolderListing } from './contract';
