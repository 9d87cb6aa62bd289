/**
 * One account's form. The secret key is write-only: the form shows whether one is stored
 * (the view's "stored · changed <date>") and where secret keys are kept (AppStatus.secretStore),
 * and offers Replace (a new one is typed) or Clear; a stored secret is never shown or sent back.
 */
import { Button, Checkbox, Form, Input, Modal, Radio, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AccountInput, AccountView, ProxySetting } from '../../../src-main/shared/contract';
import type { UiError } from '../../bridge/bridge';
import { DialogError } from '../../components/DialogError';
import { useActions, useApp } from '../../store/react';
import { secretSessionEnded, secretStoreText, secretSummaryText } from './secret-store';

interface Values {
  name: string;
  uploadUrl: string;
  mgrUrl: string;
  downloadDomain: string;
  accessKey: string;
  secretKey: string;
  tokenUrl: string;
  proxyMode: ProxySetting['mode'];
  proxyUrl: string;
  isDefault: boolean;
}

const orNull = (s: string) => (s.trim() === '' ? null : s.trim());

export function AccountForm({ account, onClose }: { account: AccountView | null; onClose: () => void }) {
  const { t } = useTranslation();
  const actions = useActions();
  const [form] = Form.useForm<Values>();
  /** keep: leave the stored secret; replace: send the typed one; clear: send null. */
  /** A secret an earlier run kept for its session only is asked for again. */
  const ended = secretSessionEnded(account?.secret);
  /** Why the last save was refused, said above the form (the dialog stays open with what was typed). */
  const [error, setError] = useState<UiError | null>(null);
  const [secret, setSecret] = useState<'keep' | 'replace' | 'clear'>(account?.hasSecret && !ended ? 'keep' : 'replace');
  const proxyMode = Form.useWatch('proxyMode', form);
  const secretStore = useApp((s) => s.app.status?.secretStore);
  const initial: Values = {
    name: account?.name ?? '',
    uploadUrl: account?.uploadUrl ?? '',
    mgrUrl: account?.mgrUrl ?? '',
    downloadDomain: account?.downloadDomain ?? '',
    accessKey: account?.accessKey ?? '',
    secretKey: '',
    tokenUrl: account?.tokenUrl ?? '',
    proxyMode: account?.proxy.mode ?? 'system',
    proxyUrl: account?.proxy.mode === 'url' ? account.proxy.url : '',
    isDefault: account?.isDefault ?? false,
  };
  const save = async (v: Values) => {
    setError(null);
    const input: AccountInput = {
      id: account?.id,
      name: v.name.trim(),
      uploadUrl: v.uploadUrl.trim(),
      mgrUrl: orNull(v.mgrUrl),
      downloadDomain: orNull(v.downloadDomain),
      accessKey: orNull(v.accessKey),
      tokenUrl: orNull(v.tokenUrl),
      proxy: v.proxyMode === 'url' ? { mode: 'url', url: v.proxyUrl.trim() } : { mode: v.proxyMode },
      isDefault: v.isDefault,
    };
    if (secret === 'clear') input.secretKey = null;
    else if (secret === 'replace' && v.secretKey !== '') input.secretKey = v.secretKey;
    const res = await actions.settings.saveAccount(input);
    if (res.ok) onClose();
    else setError(res.error);
  };
  const url = { pattern: /^https?:\/\/\S+$/i, message: t('tasks.mustBeUrl') };
  return (
    <Modal
      open
      title={account ? account.name : t('settings.addAccount')}
      okText={t('app.save')}
      cancelText={t('app.cancel')}
      onOk={() => form.submit()}
      onCancel={onClose}
      width={560}
    >
      <DialogError error={error} context="accounts.save" />
      <Form form={form} layout="vertical" initialValues={initial} onFinish={(v) => void save(v)}>
        <Form.Item name="name" label={t('settings.account.name')} rules={[{ required: true, whitespace: true }]}>
          <Input />
        </Form.Item>
        <Form.Item name="uploadUrl" label={t('settings.account.uploadUrl')} rules={[{ required: true }, url]}>
          <Input spellCheck={false} placeholder="https://upload.example.com" />
        </Form.Item>
        <Form.Item name="mgrUrl" label={t('settings.account.mgrUrl')} rules={[url]}>
          <Input spellCheck={false} />
        </Form.Item>
        <Form.Item name="downloadDomain" label={t('settings.account.downloadDomain')}>
          <Input spellCheck={false} />
        </Form.Item>
        <Form.Item name="accessKey" label={t('settings.account.accessKey')}>
          <Input spellCheck={false} autoComplete="off" />
        </Form.Item>
        <Form.Item
          label={t('settings.account.secretKey')}
          extra={
            secretStore && (
              <span data-testid="secret-store" data-kind={secretStore.kind}>
                {t('settings.secretStore.label')}: {secretStoreText(t, secretStore)}
              </span>
            )
          }
        >
          {secret === 'keep' ? (
            <Space>
              <Typography.Text data-testid="secret-state">
                {account?.secret ? secretSummaryText(t, account.secret) : t('settings.account.secretSet')}
              </Typography.Text>
              <Button size="small" onClick={() => setSecret('replace')}>
                {t('settings.account.secretReplace')}
              </Button>
              <Button size="small" danger onClick={() => setSecret('clear')}>
                {t('settings.account.secretClear')}
              </Button>
            </Space>
          ) : secret === 'clear' ? (
            <Space>
              <Typography.Text type="warning">{t('settings.account.secretNotSet')}</Typography.Text>
              {account?.hasSecret && (
                <Button size="small" onClick={() => setSecret('keep')}>
                  {t('app.cancel')}
                </Button>
              )}
            </Space>
          ) : (
            <>
              {ended && (
                <Typography.Paragraph type="warning" data-testid="secret-enter-again">
                  {t('settings.secretStore.enterAgain')}
                </Typography.Paragraph>
              )}
              <Form.Item name="secretKey" noStyle>
                <Input.Password
                  aria-label={t('settings.account.secretKey')}
                  placeholder={t('settings.account.secretPlaceholder')}
                  autoComplete="new-password"
                  visibilityToggle={false}
                />
              </Form.Item>
            </>
          )}
        </Form.Item>
        <Form.Item name="tokenUrl" label={t('settings.account.tokenUrl')} rules={[url]}>
          <Input spellCheck={false} />
        </Form.Item>
        <Form.Item name="proxyMode" label={t('settings.account.proxy')}>
          <Radio.Group
            options={[
              { value: 'system', label: t('settings.account.proxySystem') },
              { value: 'none', label: t('settings.account.proxyNone') },
              { value: 'url', label: t('settings.account.proxyUrl') },
            ]}
          />
        </Form.Item>
        {proxyMode === 'url' && (
          <Form.Item name="proxyUrl" rules={[{ required: true }, url]}>
            <Input aria-label={t('settings.account.proxyUrl')} spellCheck={false} placeholder="http://proxy:3128" />
          </Form.Item>
        )}
        <Form.Item name="isDefault" valuePropName="checked">
          <Checkbox>{t('settings.makeDefault')}</Checkbox>
        </Form.Item>
      </Form>
    </Modal>
  );
}
