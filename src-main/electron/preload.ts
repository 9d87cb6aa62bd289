import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { ApiMethod, AppEventName } from '../shared/contract';
import {
  IPC_CALL_CHANNEL,
  IPC_EVENT_CHANNEL,
  IPC_UNSENT_CHANNEL,
  PRELOAD_GLOBAL,
  type PreloadApi,
} from '../shared/wire';

/**
 * The preload of the app's window (sandboxed, context-isolated): exposes exactly PreloadApi
 * as window.blocklift and nothing else. No verb list here: `invoke` carries the method
 * name, the main side routes it (ipc.ts).
 */
const api: PreloadApi = {
  invoke: (method: ApiMethod, input: unknown) => ipcRenderer.invoke(IPC_CALL_CHANNEL, method, input),
  subscribe(listener: (name: AppEventName, payload: unknown) => void) {
    const onEvent = (_e: IpcRendererEvent, name: AppEventName, payload: unknown) => listener(name, payload);
    ipcRenderer.on(IPC_EVENT_CHANNEL, onEvent);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT_CHANNEL, onEvent);
    };
  },
  pathForFile(file: unknown) {
    try {
      return webUtils.getPathForFile(file as File);
    } catch {
      return '';
    }
  },
  reportUnsent(count: number) {
    ipcRenderer.send(IPC_UNSENT_CHANNEL, count);
  },
};

contextBridge.exposeInMainWorld(PRELOAD_GLOBAL, api);
