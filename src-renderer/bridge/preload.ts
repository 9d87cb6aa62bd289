/**
 * The bridge in the desktop app: the preload's `window.blocklift` (PreloadApi in wire.ts).
 * IPC does not drop a call half-way, so the connection is always open.
 */
import type { ApiMethod, AppEventName } from '../../src-main/shared/contract';
import type { PreloadApi } from '../../src-main/shared/wire';
import { EventDispatch } from '../../src-main/common/door-rpc';
import type { Bridge } from './bridge';

export function preloadBridge(api: PreloadApi): Bridge {
  const listeners = new EventDispatch();
  api.subscribe((name: AppEventName, payload: unknown) => listeners.emit(name, payload));
  return {
    call: ((method: ApiMethod, input: unknown) => api.invoke(method, input)) as Bridge['call'],
    on: (name, listener) => listeners.on(name, listener as (payload: unknown) => void),
    pathForFile: (file) => api.pathForFile(file),
    connection: () => 'open',
    onConnection: () => () => undefined,
  };
}
