import { vi } from 'vitest';
import type { AppEventMessage } from '../../../src-main/shared/contract';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../../src-main/shared/wire';
import { fakeElectron, FakeWebContents } from '../../unit/electron/fake-electron';
import { contractSuite } from './contract-suite';

// The Electron runtime cannot be downloaded here: the same suite runs against the Electron
// door's IPC handlers with a test double of the runtime (fake-electron.ts).
vi.mock('electron', () => fakeElectron);
const { registerIpcDoor, APP_ORIGIN } = await import('../../../src-main/electron/ipc');

contractSuite({
  door: 'electron',
  async connect(service) {
    const door = registerIpcDoor(service);
    const win = new FakeWebContents(`${APP_ORIGIN}/index.html`);
    door.attach(win as never);
    fakeElectron.currentSender = win;
    const events: AppEventMessage[] = [];
    const wire: string[] = [];
    const listeners = new Set<() => void>();
    // What the main side sends to the window, read as the preload would receive it.
    const send = win.send.bind(win);
    win.send = (channel: string, ...args: unknown[]) => {
      send(channel, ...args);
      if (channel !== IPC_EVENT_CHANNEL) return;
      wire.push(JSON.stringify(args));
      events.push({ name: args[0], payload: args[1] } as AppEventMessage);
      for (const l of listeners) l();
    };
    return {
      events,
      wire,
      async call(method, input) {
        const r = (await fakeElectron.ipcRenderer.invoke(IPC_CALL_CHANNEL, method, input)) as Awaited<
          ReturnType<typeof service.invoke>
        >;
        wire.push(JSON.stringify(r));
        return r;
      },
      onEvent(l) {
        listeners.add(l);
        return () => listeners.delete(l);
      },
      close: async () => door.dispose(),
    };
  },
});
