/**
 * "Analyse a video": its URL, the account to ask (the default one when none is chosen) and
 * the bucket the job belongs to (the account's when empty). A refusal is shown under the
 * form in words, with the action that can fix it.
 */
import { Alert, Button, Input, Select, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { UiError } from '../../bridge/bridge';
import { errorText, fixScreen } from '../../components/errors';
import { useActions, useApp } from '../../store/react';

export function CreateForm() {
  const { t } = useTranslation();
  const accounts = useApp((s) => s.settings.accounts);
  const actions = useActions();
  const [url, setUrl] = useState('');
  const [accountId, setAccountId] = useState<number | undefined>(undefined);
  const [bucket, setBucket] = useState('');
  const [refusal, setRefusal] = useState<UiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    const error = await actions.vca.create({ url, accountId, bucket });
    setBusy(false);
    setRefusal(error);
    if (!error) setUrl('');
  };
  const fix = refusal ? fixScreen(refusal) : null;
  return (
    <Space orientation="vertical" size="small" className="vca-create">
      <Space wrap size="small">
        <Input
          aria-label={t('vca.videoUrl')}
          placeholder={t('vca.videoUrl')}
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          onPressEnter={() => void submit()}
          style={{ width: 300 }}
          spellCheck={false}
        />
        <Select
          aria-label={t('vca.account')}
          value={accountId ?? 'default'}
          onChange={(v) => setAccountId(v === 'default' ? undefined : Number(v))}
          options={[
            { value: 'default', label: t('vca.defaultAccount') },
            ...accounts.map((a) => ({ value: a.id, label: a.name })),
          ]}
          style={{ width: 180 }}
        />
        <Input
          aria-label={t('vca.bucket')}
          placeholder={t('vca.bucketPlaceholder')}
          value={bucket}
          onChange={(e) => setBucket(e.target.value)}
          style={{ width: 200 }}
          spellCheck={false}
        />
        <Button
          type="primary"
          loading={busy}
          disabled={!/^https?:\/\/\S+$/i.test(url.trim())}
          onClick={() => void submit()}
        >
          {t('vca.create')}
        </Button>
      </Space>
      {refusal && (
        <Alert
          type="error"
          showIcon
          role="alert"
          data-testid="vca-create-error"
          title={errorText(t, refusal)}
          closable={{ closeIcon: true, 'aria-label': t('app.dismiss') }}
          onClose={() => setRefusal(null)}
          action={
            fix && (
              <Button size="small" onClick={() => actions.app.go(fix)}>
                {t('app.openScreen', { screen: t(`app.screens.${fix}`) })}
              </Button>
            )
          }
        />
      )}
    </Space>
  );
}
