/**
 * Picks the bridge for where the renderer runs: the preload global in the desktop app, a
 * WebSocket to the page's own host in a browser (the headless door serves both the page and
 * the socket, and its access cookie authenticates the socket).
 */
import { API_HTTP_PREFIX, API_WS_PATH, PRELOAD_GLOBAL, type PreloadApi } from '../../src-main/shared/wire';
import type { Bridge } from './bridge';
import { preloadBridge } from './preload';
import { stageFiles } from './staging';
import { webSocketBridge } from './websocket';

export function defaultBridge(win: Window): Bridge {
  const preload = (win as unknown as Record<string, PreloadApi | undefined>)[PRELOAD_GLOBAL];
  if (preload) return preloadBridge(preload);
  const scheme = win.location.protocol === 'https:' ? 'wss:' : 'ws:';
  const base = `${win.location.protocol}//${win.location.host}`;
  const bridge = webSocketBridge({
    url: `${scheme}//${win.location.host}${API_WS_PATH}`,
    // The door answers 401 to a page whose cookie is not its token (it was started again).
    refused: async () =>
      (await win.fetch(`${base}${API_HTTP_PREFIX}app.status`, { method: 'POST', credentials: 'same-origin' }))
        .status === 401,
  });
  return { ...bridge, stageFiles: (files, target, onProgress) => stageFiles(base, files, target, onProgress) };
}

export type { Bridge, BridgeConnection, UiError, UiResult } from './bridge';
export { BridgeError, callSafely } from './bridge';
