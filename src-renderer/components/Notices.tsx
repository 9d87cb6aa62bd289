/**
 * Shows the app slice's notices as toasts (antd notification): an error with the service's
 * message in words and the action that can fix it; a finished batch with its counts. A toast
 * closed by the user leaves the store; one dropped by the store closes.
 */
import { App as AntApp, Button, Space } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { Notice } from '../store/app';
import { useActions, useApp } from '../store/react';
import { errorText, errorTitle, noticeScreen } from './errors';

export function Notices() {
  const { t } = useTranslation();
  const { notification } = AntApp.useApp();
  const notices = useApp((s) => s.app.notices);
  const actions = useActions();
  const shown = useRef(new Set<number>());

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
        type: n.kind === 'batch' ? 'success' : 'error',
        title: title(t, n),
        description: n.kind === 'batch' ? t('notices.batch', n.counts) : errorText(t, n.error),
        actions: <NoticeAction notice={n} onDone={() => notification.destroy(String(n.id))} />,
        duration: n.kind === 'batch' ? 6 : 0,
        onClose: close,
      });
    }
  }, [notices, notification, actions, t]);
  return null;
}

function title(t: ReturnType<typeof useTranslation>['t'], n: Notice): string {
  if (n.kind === 'batch') return t('notices.batchTitle');
  if (n.kind === 'problem') return t('notices.problemTitle');
  return errorTitle(t, n.context);
}

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
            if (notice.kind === 'batch') void actions.transfers.setFilters({ states: [] });
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
      {notice.kind === 'error' && notice.error.code === 'bridge-closed' && (
        <Button size="small" onClick={onDone}>
          {t('app.dismiss')}
        </Button>
      )}
    </Space>
  );
}
