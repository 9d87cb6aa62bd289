/**
 * How the Settings screen says where account secrets are kept (AppStatus.secretStore) and
 * what an account's secret is (AccountView.secret, "stored · changed <date>"): words only,
 * the main process never sends a secret or its reference.
 */
import type { TFunction } from 'i18next';
import type { SecretStoreInfo } from '../../../src-main/shared/contract';

/** Linux safeStorage backends by their usual names; others are shown as Electron names them. */
const BACKEND_NAMES: Record<string, string> = {
  gnome_libsecret: 'libsecret',
  kwallet: 'KWallet',
  kwallet5: 'KWallet 5',
  kwallet6: 'KWallet 6',
  keychain: 'macOS Keychain',
  dpapi: 'Windows DPAPI',
};

/** "System keyring (libsecret)", "Session only: no keyring found", "Weak: …", "env/file references". */
export function secretStoreText(t: TFunction, info: SecretStoreInfo): string {
  switch (info.kind) {
    case 'keyring':
      return t('settings.secretStore.keyring', { backend: BACKEND_NAMES[info.backend ?? ''] ?? info.backend ?? '' });
    case 'session':
      return t('settings.secretStore.session');
    case 'weak':
      return t('settings.secretStore.weak');
    case 'files':
      return t('settings.secretStore.files');
  }
}

/** The account's secret line in the screen's language ("stored · changed 2026-11-27"); an unknown text as sent. */
export function secretSummaryText(t: TFunction, secret: string): string {
  const m = /^(stored|this session only|session ended)(?: · changed (\d{4}-\d{2}-\d{2}))?$/.exec(secret);
  if (!m) return secret;
  const kept = t(
    m[1] === 'stored'
      ? 'settings.secretStore.stored'
      : m[1] === 'session ended'
        ? 'settings.secretStore.sessionEnded'
        : 'settings.secretStore.sessionOnly',
  );
  return m[2] ? t('settings.secretStore.changed', { kept, date: m[2] }) : kept;
}

/** The secret was kept for one session only by an earlier run: it must be entered again. */
export function secretSessionEnded(secret: string | null | undefined): boolean {
  return secret?.startsWith('session ended') ?? false;
}
