/**
 * i18next set up with the two catalogs. `resolveLanguage` maps the setting ('system' or a
 * language) and the browser's languages to one of ours; Chinese variants other than
 * Simplified fall back to English rather than show Simplified to a Traditional reader.
 */
import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './en';
import { zhCN } from './zh-CN';

export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

export function resolveLanguage(setting: 'system' | Language | undefined, preferred: readonly string[]): Language {
  if (setting && setting !== 'system') return setting;
  for (const tag of preferred) {
    const lower = tag.toLowerCase();
    if (lower === 'zh' || lower === 'zh-cn' || lower === 'zh-hans' || lower.startsWith('zh-hans-')) return 'zh-CN';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

export function createI18n(language: Language): i18n {
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    lng: language,
    fallbackLng: 'en',
    resources: { en: { translation: en }, 'zh-CN': { translation: zhCN } },
    interpolation: { escapeValue: false }, // React escapes.
    returnNull: false,
    initAsync: false,
  });
  return instance;
}
