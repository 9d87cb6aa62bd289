import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeElectron } from './fake-electron';

vi.mock('electron', () => fakeElectron);

const { dialogFolderChooser } = await import('../../../src-main/electron/folder-dialog');

/** The desktop door's app.chooseFolder: Electron's folder dialog, on the app's window. */
describe('desktop folder dialog', () => {
  const win = { isDestroyed: () => false };
  beforeEach(() => {
    fakeElectron.dialog.calls.length = 0;
  });

  it('asks for one folder on the app window, starting where asked, and answers the choice', async () => {
    fakeElectron.dialog.answer = { canceled: false, filePaths: ['/home/me/Pictures'] };
    const choose = dialogFolderChooser(() => win as never);
    expect(await choose('/home/me')).toEqual({ kind: 'chosen', path: '/home/me/Pictures' });
    expect(fakeElectron.dialog.calls).toEqual([
      {
        window: win,
        options: { properties: ['openDirectory', 'createDirectory', 'dontAddToRecent'], defaultPath: '/home/me' },
      },
    ]);
  });

  it('answers canceled when the person closes it, and opens free-standing without a window', async () => {
    fakeElectron.dialog.answer = { canceled: true, filePaths: [] };
    const choose = dialogFolderChooser(() => undefined);
    expect(await choose(undefined)).toEqual({ kind: 'canceled' });
    expect(fakeElectron.dialog.calls).toEqual([
      { window: undefined, options: { properties: ['openDirectory', 'createDirectory', 'dontAddToRecent'] } },
    ]);
  });
});
