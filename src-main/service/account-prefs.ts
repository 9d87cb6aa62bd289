import type { ProxySetting } from '../shared/contract';
import type { SettingsRepo } from '../store/settings-repo';

const PREFS_KEY = 'accountPrefs';

interface Stored {
  defaultId?: number;
  proxies?: Record<string, ProxySetting>;
}

/**
 * What the app keeps about accounts besides their rows: which one is the default, and the
 * proxy setting of each (stored in the settings table, key `accountPrefs`).
 */
export class AccountPrefs {
  constructor(private readonly repo: SettingsRepo) {}

  private read(): Stored {
    return this.repo.get<Stored>(PREFS_KEY) ?? {};
  }

  get defaultId(): number | undefined {
    return this.read().defaultId;
  }

  setDefault(id: number | undefined): void {
    this.repo.set(PREFS_KEY, { ...this.read(), defaultId: id });
  }

  proxyOf(id: number): ProxySetting {
    return this.read().proxies?.[String(id)] ?? { mode: 'system' };
  }

  setProxy(id: number, proxy: ProxySetting): void {
    const s = this.read();
    this.repo.set(PREFS_KEY, { ...s, proxies: { ...s.proxies, [String(id)]: proxy } });
  }

  forget(id: number): void {
    const s = this.read();
    const proxies = { ...s.proxies };
    delete proxies[String(id)];
    this.repo.set(PREFS_KEY, { ...s, proxies, defaultId: s.defaultId === id ? undefined : s.defaultId });
  }
}
