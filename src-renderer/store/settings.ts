/**
 * The settings slice: the app's settings and accounts. A change is sent at once and the
 * settings the service returns replace the local ones (it may have normalised a value).
 * Secrets only travel one way: `saveAccount` may carry one, nothing here ever holds one.
 */
import type {
  AccountInput,
  AccountTestResult,
  AccountView,
  AppEvents,
  Settings,
  SettingsPatch,
} from '../../src-main/shared/contract';
import { callSafely, type UiResult } from '../bridge/bridge';
import type { SliceContext } from './slice';

export interface SettingsState {
  settings: Settings | null;
  accounts: AccountView[];
  /** The last connection test per account id. */
  tests: Record<number, AccountTestResult | 'running'>;
}

export function initial(): SettingsState {
  return { settings: null, accounts: [], tests: {} };
}

export function applySettings(state: SettingsState, settings: AppEvents['settings']): SettingsState {
  return { ...state, settings };
}

export function applyAccounts(state: SettingsState, accounts: AppEvents['accounts']): SettingsState {
  return { ...state, accounts };
}

export function actions(ctx: SliceContext<SettingsState>) {
  return {
    load: async (): Promise<void> => {
      const [settings, accounts] = await Promise.all([
        callSafely(ctx.bridge, 'settings.get', undefined),
        callSafely(ctx.bridge, 'accounts.list', undefined),
      ]);
      if (settings.ok) ctx.set({ settings: settings.value });
      else ctx.report(settings.error, 'settings.get');
      if (accounts.ok) ctx.set({ accounts: accounts.value });
      else ctx.report(accounts.error, 'accounts.list');
    },
    change: async (patch: SettingsPatch): Promise<boolean> => {
      const res = await callSafely(ctx.bridge, 'settings.set', patch);
      if (!res.ok) {
        ctx.report(res.error, 'settings.set');
        return false;
      }
      ctx.set({ settings: res.value });
      return true;
    },
    /** Saves an account; a refusal is returned, not reported: the account's dialog stays open and says it. */
    saveAccount: async (input: AccountInput): Promise<UiResult<AccountView>> => {
      const res = await callSafely(ctx.bridge, 'accounts.save', input);
      if (!res.ok) return res;
      const saved = res.value;
      ctx.set((s) => ({
        accounts: s.accounts.some((a) => a.id === saved.id)
          ? s.accounts.map((a) => (a.id === saved.id ? saved : saved.isDefault ? { ...a, isDefault: false } : a))
          : [...s.accounts, saved],
      }));
      return res;
    },
    removeAccount: async (id: number): Promise<void> => {
      const res = await callSafely(ctx.bridge, 'accounts.remove', { id });
      if (!res.ok) return ctx.report(res.error, 'accounts.remove');
      ctx.set((s) => ({ accounts: s.accounts.filter((a) => a.id !== id) }));
    },
    testAccount: async (id: number): Promise<void> => {
      ctx.set((s) => ({ tests: { ...s.tests, [id]: 'running' } }));
      const res = await callSafely(ctx.bridge, 'accounts.test', { id });
      if (!res.ok) {
        ctx.set((s) => {
          const tests = { ...s.tests };
          delete tests[id];
          return { tests };
        });
        return ctx.report(res.error, 'accounts.test');
      }
      ctx.set((s) => ({ tests: { ...s.tests, [id]: res.value } }));
    },
  };
}

export type SettingsActions = ReturnType<typeof actions>;
