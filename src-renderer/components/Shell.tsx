/**
 * The app shell: the kit's theme and locale (light/dark following the setting or the system,
 * en or zh-CN), the navigation between the five screens (tabs; Ctrl/Cmd+1…5 from the keymap), the first-run
 * panel, toasts, the window-wide drop target, and the `?` sheet of keyboard shortcuts.
 */
import { Alert, ConfigProvider, App as AntApp, Button, Tabs, Tag, theme } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { useEffect, useState, type ReactNode } from 'react';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { createI18n } from '../i18n/i18n';
import { SCREENS, type Screen } from '../store/app';
import { useActions, useApp } from '../store/react';
import { DropZone } from './DropZone';
import { FirstRun } from './FirstRun';
import { LAYER_TOKENS, NOTIFICATION } from './layers';
import { Notices } from './Notices';
import { ShortcutsSheet } from './ShortcutsSheet';
import { useAppearance } from './useAppearance';
import { useShortcuts } from './useShortcuts';

/** Latin system faces first, then Chinese ones (PingFang first would spoil Latin digits). */
const FONT =
  "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', 'PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', sans-serif";

/**
 * Colour tokens: the kit's defaults, darkened (light theme) where text on them fell below the
 * 4.5:1 contrast WCAG asks for (the blue of the selected tab, the greens of status tags;
 * status tags are solid in light (white on the status colour), filled in dark (status colour on dark),
 * and lightened (dark theme) where blue is used as text. Tags use status colours (success,
 * processing…), not the kit's preset palette, whose solid greens and blues are below 4.5:1.
 * Checked by axe's colour-contrast rule in test/e2e/screens-fixture.test.ts.
 */
const LIGHT = {
  fontFamily: FONT,
  colorPrimary: '#0958d9',
  colorSuccess: '#237804',
  colorWarning: '#ad4e00',
  colorError: '#cf1322',
  colorInfo: '#0958d9',
  // Statistic titles, descriptions, secondary text: the kit's 45 % black is 3.3:1 on the layout grey.
  colorTextSecondary: 'rgba(0, 0, 0, 0.65)',
  colorTextDescription: 'rgba(0, 0, 0, 0.65)',
  // Text and borders of hovered or focused buttons and links: darker than the rest colour, not lighter.
  colorPrimaryHover: '#003eb3',
  colorLinkHover: '#003eb3',
};
const DARK = {
  fontFamily: FONT,
  colorPrimary: '#1668dc',
  colorSuccess: '#73d13d',
  colorWarning: '#ffc53d',
  colorError: '#ff7875',
  colorInfo: '#1668dc',
  colorTextSecondary: 'rgba(255, 255, 255, 0.65)',
  colorTextDescription: 'rgba(255, 255, 255, 0.65)',
  // Blue as text on dark (links, selected menu item, processing tags): a lighter blue than the
  // fills, which keep #1668dc so white text on primary buttons stays readable.
  colorLink: '#69b1ff',
  colorLinkHover: '#91caff',
  colorPrimaryText: '#69b1ff',
  colorPrimaryTextHover: '#91caff',
  colorInfoText: '#69b1ff',
};

/**
 * Component tokens where the kit colours text with the fill colour (see DARK), and the
 * depths of drawers and toasts (components/layers.ts).
 */
const LIGHT_COMPONENTS = {
  Button: { defaultHoverColor: '#003eb3', defaultHoverBorderColor: '#003eb3' },
  ...LAYER_TOKENS,
};
const DARK_COMPONENTS = {
  Button: { defaultHoverColor: '#69b1ff', defaultHoverBorderColor: '#69b1ff' },
  ...LAYER_TOKENS,
  Menu: { itemSelectedColor: '#69b1ff' },
  Tabs: { itemSelectedColor: '#69b1ff', itemHoverColor: '#91caff', itemActiveColor: '#91caff' },
  Tag: { colorInfo: '#69b1ff' },
};

export function Shell({ screens }: { screens: Record<Screen, () => ReactNode> }) {
  const { language, dark } = useAppearance();
  // One i18next instance for the life of the window; the language changes on it below.
  const [i18n] = useState(() => createI18n(language));
  useEffect(() => {
    void i18n.changeLanguage(language);
    document.documentElement.lang = language;
  }, [i18n, language]);
  useEffect(() => {
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
  }, [dark]);

  return (
    <I18nextProvider i18n={i18n}>
      <ConfigProvider
        locale={language === 'zh-CN' ? zhCN : enUS}
        theme={{
          algorithm: dark ? theme.darkAlgorithm : theme.defaultAlgorithm,
          token: dark ? DARK : LIGHT,
          components: dark ? DARK_COMPONENTS : LIGHT_COMPONENTS,
        }}
        tag={{ variant: dark ? 'filled' : 'solid' }}
      >
        <AntApp className="app-root" notification={NOTIFICATION}>
          <Frame screens={screens} />
          <Notices />
          <DropZone />
        </AntApp>
      </ConfigProvider>
    </I18nextProvider>
  );
}

function Frame({ screens }: { screens: Record<Screen, () => ReactNode> }) {
  const { t } = useTranslation();
  const screen = useApp((s) => s.app.screen);
  const connection = useApp((s) => s.app.connection);
  const actions = useActions();
  const { token } = theme.useToken();

  const [sheet, setSheet] = useState(false);
  useShortcuts('global', {
    help: () => setSheet(true),
    ...Object.fromEntries(SCREENS.map((key) => [`screen.${key}`, () => actions.app.go(key)])),
  });

  return (
    <div className="frame" style={{ background: token.colorBgLayout, color: token.colorText }}>
      <FirstRun />
      {/* Beside the tab bar, not in it: the tab list may only hold tabs (axe aria-required-children). */}
      <div className="frame-extra">
        <Tag
          color={
            connection === 'open'
              ? 'success'
              : connection === 'closed' || connection === 'refused'
                ? 'error'
                : connection === 'stalled'
                  ? 'warning'
                  : 'processing'
          }
        >
          {t(`app.connection.${connection}`)}
        </Tag>
        <Button size="small" onClick={() => setSheet(true)} aria-keyshortcuts="?">
          {t('shortcuts.open')}
        </Button>
      </div>
      <Tabs
        className="screens"
        activeKey={screen}
        onChange={(key) => actions.app.go(key as Screen)}
        destroyOnHidden
        aria-label={t('app.nav')}
        tabBarStyle={{ padding: '0 16px', marginBottom: 0 }}
        items={SCREENS.map((key) => ({
          key,
          label: t(`app.screens.${key}`),
          children: (
            <main className="screen">
              {connection === 'refused' && (
                // The door refuses this page (started again, new token): what to do, above every screen.
                <Alert
                  type="error"
                  showIcon
                  role="alert"
                  message={t('app.refused', { origin: window.location.origin })}
                />
              )}
              {screens[key]()}
            </main>
          ),
        }))}
      />
      <ShortcutsSheet open={sheet} onClose={() => setSheet(false)} />
    </div>
  );
}
