import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DoorBackend } from '../../../src-main/service/door-backend';
import type { AppApi, AppEventMessage } from '../../../src-main/shared/contract';
import type { PreloadApi } from '../../../src-main/shared/wire';
import { fakeElectron, FakeWebContents, handlers, exposed, mainListeners } from './fake-electron';

vi.mock('electron', () => fakeElectron);

const { registerIpcDoor, APP_ORIGIN } = await import('../../../src-main/electron/ipc');
const { API_METHODS, API_VERBS } = await import('../../../src-main/shared/contract');
const { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, IPC_UNSENT_CHANNEL, PRELOAD_GLOBAL } =
  await import('../../../src-main/shared/wire');

/**
 * A backend whose every verb records its call and echoes its input (tests the door's
 * routing and checks, not the service; the contract suite runs the real one).
 */
function recordingBackend(calls: string[], listeners: Set<(e: AppEventMessage) => void>): DoorBackend {
  const api = Object.fromEntries(
    Object.entries(API_VERBS).map(([area, verbs]) => [
      area,
      Object.fromEntries(
        verbs.map((v) => [
          v,
          async (input: unknown) => {
            calls.push(`${area}.${v}`);
            if (input === 'throw') throw new Error('boom');
            return { ok: true, value: { method: `${area}.${v}`, input } };
          },
        ]),
      ),
    ]),
  ) as unknown as AppApi;
  return {
    ...api,
    invoke(method: string, input: unknown) {
      const [area, verb] = method.split('.') as [keyof AppApi, string];
      const fn = (api[area] as unknown as Record<string, ((i: unknown) => Promise<never>) | undefined> | undefined)?.[
        verb
      ];
      if (!Object.hasOwn(API_VERBS, area) || !fn || !(API_VERBS[area] as readonly string[]).includes(verb))
        return Promise.resolve({ ok: false, error: { code: 'unknown-method', message: 'no', params: { method } } });
      return fn(input);
    },
    on(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

describe('Electron IPC door', () => {
  const calls: string[] = [];
  const listeners = new Set<(e: AppEventMessage) => void>();
  let door: ReturnType<typeof registerIpcDoor>;
  let win: FakeWebContents;
  const invoke = (method: unknown, input?: unknown) =>
    fakeElectron.ipcRenderer.invoke(IPC_CALL_CHANNEL, method, input) as Promise<
      { ok: boolean } & Record<string, unknown>
    >;

  beforeEach(() => {
    calls.length = 0;
    door = registerIpcDoor(recordingBackend(calls, listeners));
    win = new FakeWebContents(`${APP_ORIGIN}/index.html`);
    door.attach(win as never);
    fakeElectron.currentSender = win;
  });

  afterEach(() => door.dispose());

  it('registers one handler, which routes every contract verb and nothing else', async () => {
    expect([...handlers.keys()]).toEqual([IPC_CALL_CHANNEL]);
    for (const method of API_METHODS) {
      const r = await invoke(method, { n: 1 });
      expect(r, method).toEqual({ ok: true, value: { method, input: { n: 1 } } });
    }
    expect(calls).toEqual([...API_METHODS]);
    const unknown = await invoke('transfers.explode');
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown-method' } });
    expect(await invoke('toString')).toMatchObject({ ok: false, error: { code: 'unknown-method' } });
    expect(calls).toHaveLength(API_METHODS.length);
  });

  it('answers a rejection inside the backend with the internal envelope (no message), and a non-string method as unknown', async () => {
    const r = await invoke('transfers.list', 'throw');
    expect(r).toMatchObject({ ok: false, error: { code: 'internal', params: { detail: 'transfers.list failed' } } });
    expect(JSON.stringify(r)).not.toContain('boom');
    expect(await invoke(42)).toMatchObject({ ok: false, error: { code: 'unknown-method' } });
  });

  it('ignores calls from another origin, an iframe or a window it did not attach', async () => {
    const before = calls.length;
    win.mainFrame.url = 'https://evil.example/';
    expect(await invoke('app.status')).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    win.mainFrame.url = `${APP_ORIGIN}/index.html`;
    fakeElectron.currentSender = Object.assign(new FakeWebContents(), {});
    expect(await invoke('app.status')).toMatchObject({ ok: false });
    const child = new FakeWebContents(`${APP_ORIGIN}/index.html`);
    door.attach(child as never);
    (child.mainFrame as { parent: unknown }).parent = win.mainFrame;
    fakeElectron.currentSender = child;
    expect(await invoke('app.status')).toMatchObject({ ok: false });
    expect(calls.length).toBe(before);
  });

  it('pushes every event batch to attached windows, not to destroyed ones', () => {
    const other = new FakeWebContents();
    door.attach(other as never);
    other.destroy();
    for (const l of listeners) l({ name: 'problems', payload: { problems: [] } });
    expect(win.sent).toEqual([{ channel: IPC_EVENT_CHANNEL, args: ['problems', { problems: [] }] }]);
    expect(other.sent).toEqual([]);
  });

  it("keeps each window's count of unsaved review decisions, from the app's own page only", () => {
    const heard: number[] = [];
    door.onUnsent((_contents, n) => heard.push(n));
    const send = (count: unknown) => fakeElectron.ipcRenderer.send(IPC_UNSENT_CHANNEL, count);
    expect(door.unsent(win as never)).toBe(0);
    send(3);
    expect(door.unsent(win as never)).toBe(3);
    // Not a count: ignored.
    for (const bad of [-1, 1.5, '2', null]) send(bad);
    expect(door.unsent(win as never)).toBe(3);
    // Another origin, or a window the door did not attach: ignored.
    win.mainFrame.url = 'https://evil.example/';
    send(9);
    win.mainFrame.url = `${APP_ORIGIN}/index.html`;
    const stranger = new FakeWebContents();
    fakeElectron.currentSender = stranger;
    send(9);
    expect(door.unsent(stranger as never)).toBe(0);
    fakeElectron.currentSender = win;
    send(0);
    expect(heard).toEqual([3, 0]);
  });

  it('stops serving after dispose', async () => {
    door.dispose();
    expect(handlers.size).toBe(0);
    expect(mainListeners.get(IPC_UNSENT_CHANNEL)?.size ?? 0).toBe(0);
    expect(listeners.size).toBe(0);
    door = registerIpcDoor(recordingBackend(calls, new Set()));
  });
});

describe('preload', () => {
  it('exposes exactly PreloadApi as window.blocklift, wired to the IPC door', async () => {
    const calls: string[] = [];
    const listeners = new Set<(e: AppEventMessage) => void>();
    const door = registerIpcDoor(recordingBackend(calls, listeners));
    const win = new FakeWebContents(`${APP_ORIGIN}/`);
    door.attach(win as never);
    fakeElectron.currentSender = win;
    await import('../../../src-main/electron/preload');
    expect(Object.keys(exposed)).toEqual([PRELOAD_GLOBAL]);
    const api = exposed[PRELOAD_GLOBAL] as PreloadApi;
    expect(Object.keys(api).sort()).toEqual(['invoke', 'pathForFile', 'reportUnsent', 'subscribe']);
    expect(await api.invoke('settings.get', undefined)).toEqual({
      ok: true,
      value: { method: 'settings.get', input: undefined },
    });
    const got: unknown[] = [];
    const off = api.subscribe((name, payload) => got.push([name, payload]));
    for (const l of listeners) l({ name: 'batchFinished', payload: { done: 1, failed: 0, skipped: 0, canceled: 0 } });
    fakeElectron.deliver(win);
    off();
    for (const l of listeners) l({ name: 'batchFinished', payload: { done: 2, failed: 0, skipped: 0, canceled: 0 } });
    fakeElectron.deliver(win);
    expect(got).toEqual([['batchFinished', { done: 1, failed: 0, skipped: 0, canceled: 0 }]]);
    expect(api.pathForFile({ path: '/home/me/a.jpg' })).toBe('/home/me/a.jpg');
    expect(api.pathForFile({})).toBe('');
    api.reportUnsent(2);
    expect(door.unsent(win as never)).toBe(2);
    door.dispose();
  });
});
