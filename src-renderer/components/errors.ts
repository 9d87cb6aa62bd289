/**
 * An error in words: the translated message of its code with its params, and which action
 * can fix it (a screen to open, or trying again).
 */
import type { TFunction } from 'i18next';
import type { UiError } from '../bridge/bridge';
import type { Screen } from '../store/app';

export function errorText(t: TFunction, error: UiError): string {
  const params = Object.fromEntries(Object.entries(error.params).map(([k, v]) => [k, v === null ? '' : String(v)]));
  const key = `errors.${error.code}`;
  // A code this version does not know (a newer service): its English message is better than nothing.
  return t(key, { ...params, defaultValue: error.message });
}

/** The screen whose form can fix the error, when there is one. */
export function fixScreen(error: UiError): Screen | null {
  switch (error.code) {
    case 'no-account':
    case 'service-auth-failed':
    case 'service-unreachable':
    case 'account-invalid':
    case 'secret-store-unavailable':
    case 'vca-not-enabled':
    case 'invalid-schedule':
    case 'invalid-setting':
      return 'settings';
    case 'root-refused':
    case 'invalid-watch-options':
      return 'folders';
    case 'transfer-failed':
      return 'transfers';
    default:
      return null;
  }
}
