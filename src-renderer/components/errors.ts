/**
 * An error in words: the translated message of its code with its params, and which action
 * can fix it (a screen to open, or trying again).
 */
import type { TFunction } from 'i18next';
import type { WatchRootView } from '../../src-main/shared/contract';
import { MAX_KEY_BYTES } from '../../src-main/shared/keys';
import type { UiError } from '../bridge/bridge';
import type { Notice, Screen } from '../store/app';

export function errorText(t: TFunction, error: UiError): string {
  const params = Object.fromEntries(Object.entries(error.params).map(([k, v]) => [k, v === null ? '' : String(v)]));
  const key = `errors.${error.code}`;
  // A code this version does not know (a newer service): its English message is better than nothing.
  return t(key, { ...params, defaultValue: error.message });
}

/**
 * The title of a failed action's toast, by the verb that failed ("transfers.add" → "Could not
 * add the files"); an action without its own title gets a general one, never the verb's name.
 */
export function errorTitle(t: TFunction, context: string): string {
  return t(`notices.actions.${context}`, { defaultValue: t('notices.errorTitle') });
}

/**
 * Why a watched folder's file was rejected (a row of WatchRootView's `rejected`). The row's
 * own message is English and has the detail (the byte count, the character): in English it
 * is shown as it is. In another language the words come from its key code (shared/keys.ts
 * KeyRejectCode), without the detail, since the rows keep no params; an unknown code shows
 * the row's message.
 */
export function keyRejectText(t: TFunction, language: string, rejected: { code: string; message: string }): string {
  if (language === 'en' || language.startsWith('en-')) return rejected.message;
  return t(`folders.keyRejects.${rejected.code}`, { limit: MAX_KEY_BYTES, defaultValue: rejected.message });
}

/**
 * Why a watched folder is paused or unavailable (WatchRootView's reason), in the UI's
 * language: its catalog code with its params (errorText). A reason stored by an older version
 * has no code: its English text is shown as it is.
 */
export function rootReasonText(
  t: TFunction,
  root: Pick<WatchRootView, 'reason' | 'reasonCode' | 'reasonParams'>,
): string | null {
  if (root.reason === null) return null;
  if (root.reasonCode === null) return root.reason;
  return errorText(t, {
    code: root.reasonCode as UiError['code'],
    message: root.reason,
    params: root.reasonParams ?? {},
  });
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

/**
 * The screen a notice's button opens: a finished batch → Transfers; a problem of a watched
 * folder → Folders (whatever its code: an unreadable file there is fixed there); else the
 * screen that fixes its error, and Transfers for a problem of one transfer.
 */
export function noticeScreen(notice: Notice): Screen | null {
  if (notice.kind === 'batch') return 'transfers';
  if (notice.kind === 'problem' && notice.rootId !== undefined) return 'folders';
  return fixScreen(notice.error) ?? (notice.kind === 'problem' && notice.transferId !== undefined ? 'transfers' : null);
}

/** A finished batch's toast. */
export interface BatchLook {
  /** The toast's icon: a batch with failures is not a success. */
  type: 'success' | 'warning';
  titleKey: 'notices.batchTitle' | 'notices.batchFailedTitle';
  /** Seconds shown; 0: until closed (failures wait for the person, as errors do). */
  duration: number;
  /** The transfers its button shows: the failed ones when some failed, else all. */
  states: Array<'failed'>;
}

export function batchLook(counts: { failed: number }): BatchLook {
  return counts.failed > 0
    ? { type: 'warning', titleKey: 'notices.batchFailedTitle', duration: 0, states: ['failed'] }
    : { type: 'success', titleKey: 'notices.batchTitle', duration: 6, states: [] };
}
