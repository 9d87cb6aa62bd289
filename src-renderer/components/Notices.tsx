/**
 * Shows the app slice's notices as toasts (antd notification): an error with the service's
 * message in words and the action that can fix it; a finished batch with its counts. A toast
 * closed by the user leaves the store; one dropped by the store closes. Each has an edge in
 * the kit's border colour: in the dark theme a toast over a detail panel has the panel's own
 * background, and the shadow that sets it apart in light does not show on dark.
 */
import { App as AntApp, Button, Space, theme } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { Notice } from '../store/app';
import { useActions, useApp } from '../store/react';
import { batchLook, errorText, errorTitle, noticeScreen } from './errors';

export function Notices() {
  const { t } = useTranslation();
  const { notification } = AntApp.useApp();
  const notices = useApp((s) => s.app.notices);
  const actions = useActions();
  const shown = useRef(new Set<number>());
  const { token } = theme.useToken();

  useEffect(() => {
    const current = new Set(notices.map((n) => n.id));
    for (const id of shown.current) {
      if (!current.has(id)) {
        notification.destroy(String(id));
        shown.current.delete(id);
      }
    }
    for (const n of notices) {
      if (shown.current.has(n.id)) continue;
      shown.current.add(n.id);
      const close = () => {
        shown.current.delete(n.id);
        actions.app.dismiss(n.id);
      };
      notification.open({
        key: String(n.id),
        type: n.kind === 'batch' ? batchLook(n.counts).type : 'error',
        title: title(t, n),
        description: n.kind === 'batch' ? t('notices.batch', n.counts) : errorText(t, n.error),
        // None when it has no button: an empty line of actions left a blank band under the text.
        actions: hasAction(n) ? (
          <NoticeAction notice={n} onDone={() => notification.destroy(String(n.id))} />
        ) : undefined,
        duration: n.kind === 'batch' ? batchLook(n.counts).duration : 0,
        onClose: close,
        style: { border: `${token.lineWidth}px ${token.lineType} ${token.colorBorder}` },
      });
    }
  }, [notices, notification, actions, t, token]);
  return null;
}

function title(t: ReturnType<typeof useTranslation>['t'], n: Notice): string {
  if (n.kind === 'batch') return t(batchLook(n.counts).titleKey);
  if (n.kind === 'problem') return t('notices.problemTitle');
  return errorTitle(t, n.context);
}

/** A lost connection's toast has "Dismiss". */
const dismissable = (notice: Notice): boolean => notice.kind === 'error' && notice.error.code === 'bridge-closed';

/** Whether the toast has a button: the screen that can fix it, or "Dismiss". */
const hasAction = (notice: Notice): boolean => noticeScreen(notice) !== null || dismissable(notice);

function NoticeAction({ notice, onDone }: { notice: Notice; onDone: () => void }) {
  const { t } = useTranslation();
  const actions = useActions();
  const screen = noticeScreen(notice);
  return (
    <Space>
      {screen && (
        <Button
          size="small"
          type="primary"
          onClick={() => {
            actions.app.go(screen);
            if (notice.kind === 'batch') void actions.transfers.setFilters({ states: batchLook(notice.counts).states });
            onDone();
          }}
        >
          {screen === 'settings'
            ? t('app.openSettings')
            : screen === 'transfers'
              ? t('app.showTransfers')
              : t('app.openScreen', { screen: t(`app.screens.${screen}`) })}
        </Button>
      )}
      {dismissable(notice) && (
        <Button size="small" onClick={onDone}>
          {t('app.dismiss')}
        </Button>
      )}
    </Space>
  );
}
