/** The panel a new user sees: where uploads go now, what to do first, and where real accounts go. */
import { Alert, Button, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { useActions, useApp } from '../store/react';

export function FirstRun() {
  const { t } = useTranslation();
  const status = useApp((s) => s.app.status);
  const dismissed = useApp((s) => s.app.firstRunDismissed);
  const actions = useActions();
  if (!status?.firstRun || dismissed) return null;
  return (
    <Alert
      type="info"
      showIcon
      role="region"
      aria-label={t('firstRun.title')}
      title={t('firstRun.title')}
      description={
        <div>
          <p>{status.emulator ? t('firstRun.emulator', { url: status.emulator.url }) : t('firstRun.noEmulator')}</p>
          <p>{t('firstRun.drop')}</p>
          <p>{t('firstRun.account')}</p>
          <Space wrap>
            <Button onClick={() => actions.app.go('folders')}>{t('firstRun.addFolder')}</Button>
            <Button onClick={() => actions.app.go('settings')}>{t('firstRun.addAccount')}</Button>
            <Button type="primary" onClick={actions.app.dismissFirstRun}>
              {t('firstRun.gotIt')}
            </Button>
          </Space>
        </div>
      }
      style={{ margin: '8px 16px' }}
    />
  );
}
