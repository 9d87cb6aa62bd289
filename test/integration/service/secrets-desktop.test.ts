import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AccountView, AppStatus } from '../../../src-main/shared/contract';
import { fakeElectron } from '../../unit/electron/fake-electron';
import { ContractWorld } from './contract-world';

// The desktop secret store (src-main/electron/secrets.ts) under the real service, with the
// stand-in of the Electron runtime answering safeStorage's backend (issue 20.3).
vi.mock('electron', () => fakeElectron);
const { SafeStorageSecretStore } = await import('../../../src-main/electron/secrets');

const today = () => new Date().toISOString().slice(0, 10);

describe('account secrets in the desktop app, by safeStorage backend', () => {
  let world: ContractWorld | undefined;
  afterEach(async () => {
    fakeElectron.safeStorage.backend = 'gnome_libsecret';
    await world?.close();
    world = undefined;
  });

  /** `again`: the same data folder, opened by a new run (the app restarted). */
  async function open(backend: string, again = false) {
    fakeElectron.safeStorage.backend = backend;
    if (!again || !world) world = await ContractWorld.create();
    const file = `${world.dataDir}.secrets.json`;
    const svc = await world.open({
      embeddedEmulator: false,
      secrets: new SafeStorageSecretStore(file, undefined, 'linux'),
    });
    const call = async <T>(method: string, input?: unknown): Promise<T> => {
      const r = await svc.invoke(method, input);
      if (!r.ok) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
      return r.value as T;
    };
    let id: number | undefined;
    const save = (secretKey: string) =>
      call<AccountView>('accounts.save', {
        name: 'Cloud',
        uploadUrl: 'http://127.0.0.1:9/',
        accessKey: 'ak',
        secretKey,
        ...(id === undefined ? {} : { id }),
      });
    return {
      close: () => svc.close(),
      accounts: () => call<AccountView[]>('accounts.list'),
      status: () => call<AppStatus>('app.status'),
      setWeak: (on: boolean) => call('settings.set', { storeSecretsWithoutKeyring: on }),
      save: async (secretKey: string) => {
        const v = await save(secretKey);
        id = v.id;
        return v;
      },
    };
  }

  it('a keyring: the status names it and the secret is stored', async () => {
    const app = await open('kwallet5');
    expect((await app.status()).secretStore).toEqual({ kind: 'keyring', backend: 'kwallet5' });
    expect((await app.save('sk-1')).secret).toBe(`stored · changed ${today()}`);
  });

  it('basic_text: session only until the user turns on the weak store; the views never carry the secret', async () => {
    const app = await open('basic_text');
    expect((await app.status()).secretStore).toEqual({ kind: 'session', backend: 'basic_text' });
    const kept = await app.save('sk-session-only');
    expect(kept.secret).toBe(`this session only · changed ${today()}`);
    await app.setWeak(true);
    const status = await app.status();
    expect(status.secretStore).toEqual({ kind: 'weak', backend: 'basic_text' });
    const stored = await app.save('sk-weak');
    expect(stored.secret).toBe(`stored · changed ${today()}`);
    expect(JSON.stringify([kept, stored, status])).not.toMatch(/sk-session-only|sk-weak|session:|weak:|keychain:/);
  });

  it('basic_text: after a restart the account says its session ended, so the secret is asked for again', async () => {
    const first = await open('basic_text');
    await first.save('sk-session-only');
    await first.close();
    const second = await open('basic_text', true);
    const [account] = await second.accounts();
    expect(account?.hasSecret).toBe(true);
    expect(account?.secret).toBe(`session ended · changed ${today()}`);
  });
});
