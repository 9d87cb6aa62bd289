import i18next from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { en } from '../../../src-renderer/i18n/en';
import { zhCN } from '../../../src-renderer/i18n/zh-CN';
import {
  secretSessionEnded,
  secretStoreText,
  secretSummaryText,
} from '../../../src-renderer/screens/settings/secret-store';

const i18n = i18next.createInstance();
beforeAll(async () => {
  await i18n.init({
    lng: 'en',
    resources: { en: { translation: en }, 'zh-CN': { translation: zhCN } },
    interpolation: { escapeValue: false },
  });
});

describe('where secret keys are kept, in words (issue 20.3)', () => {
  it('names each store: keyring with its backend, session only, weak, env/file references', () => {
    const t = i18n.getFixedT('en');
    expect(secretStoreText(t, { kind: 'keyring', backend: 'gnome_libsecret' })).toBe('System keyring (libsecret)');
    expect(secretStoreText(t, { kind: 'keyring', backend: 'kwallet6' })).toBe('System keyring (KWallet 6)');
    expect(secretStoreText(t, { kind: 'keyring', backend: 'dpapi' })).toBe('System keyring (Windows DPAPI)');
    expect(secretStoreText(t, { kind: 'session', backend: 'basic_text' })).toMatch(
      /^Session only: no keyring was found/,
    );
    expect(secretStoreText(t, { kind: 'weak', backend: 'basic_text' })).toMatch(/^Weak: stored with a key fixed/);
    expect(secretStoreText(t, { kind: 'files', backend: null })).toMatch(/env:NAME, file:\/path/);
    expect(secretStoreText(i18n.getFixedT('zh-CN'), { kind: 'keyring', backend: 'kwallet5' })).toBe(
      '系统密钥环（KWallet 5）',
    );
  });

  it("shows the account's secret text in the screen's language, and an unknown text as sent", () => {
    const t = i18n.getFixedT('en');
    expect(secretSummaryText(t, 'stored · changed 2026-11-27')).toBe('stored · changed 2026-11-27');
    expect(secretSummaryText(t, 'this session only · changed 2026-11-27')).toBe(
      'this session only · changed 2026-11-27',
    );
    expect(secretSummaryText(t, 'stored')).toBe('stored');
    const zh = i18n.getFixedT('zh-CN');
    expect(secretSummaryText(zh, 'stored · changed 2026-11-27')).toBe('已保存 · 修改于 2026-11-27');
    expect(secretSummaryText(zh, 'this session only · changed 2026-11-27')).toBe('仅本次运行 · 修改于 2026-11-27');
    expect(secretSummaryText(zh, 'session ended · changed 2026-11-26')).toBe('上次运行已结束 · 修改于 2026-11-26');
    expect(secretSummaryText(zh, 'something new')).toBe('something new');
    expect(secretSessionEnded('session ended · changed 2026-11-26')).toBe(true);
    expect(secretSessionEnded('this session only · changed 2026-11-26')).toBe(false);
    expect(secretSessionEnded(null)).toBe(false);
  });
});
