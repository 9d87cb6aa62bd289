/**
 * The effective language and theme: the user's setting, or the system's when the setting is
 * 'system' (the browser's languages, `prefers-color-scheme`, followed live).
 */
import { useEffect, useState } from 'react';
import { resolveLanguage, type Language } from '../i18n/i18n';
import { useApp } from '../store/react';

function useSystemDark(): boolean {
  const query = '(prefers-color-scheme: dark)';
  const [dark, setDark] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const mql = window.matchMedia(query);
    const onChange = () => setDark(mql.matches);
    mql.addEventListener('change', onChange);
    return () => mql.removeEventListener('change', onChange);
  }, []);
  return dark;
}

export function useAppearance(): { language: Language; dark: boolean } {
  const languageSetting = useApp((s) => s.settings.settings?.language);
  const themeSetting = useApp((s) => s.settings.settings?.theme ?? 'system');
  const systemDark = useSystemDark();
  const language = resolveLanguage(languageSetting, navigator.languages);
  const dark = themeSetting === 'system' ? systemDark : themeSetting === 'dark';
  return { language, dark };
}
