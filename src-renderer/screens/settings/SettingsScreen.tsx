/**
 * The Settings screen: accounts (with a write-only secret and a connection test showing the
 * service's answer), uploading (concurrency, bandwidth, block and chunk size, conflicts), the
 * weekly schedule grid, notifications, system, language and theme. Each change is sent at once.
 */
import {
  Button,
  Card,
  Empty,
  Form,
  InputNumber,
  List,
  Popconfirm,
  Radio,
  Select,
  Space,
  Switch,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AccountView, Settings } from '../../../src-main/shared/contract';
import { CONCURRENCY_BOUNDS } from '../../../src-main/shared/schemas';
import { formatBytes } from '../../format/format';
import { useActions, useApp } from '../../store/react';
import { AccountForm } from './AccountForm';
import { ScheduleGrid } from './ScheduleGrid';
import { secretStoreText, secretSummaryText } from './secret-store';
import { defaultLimitedRate, gridFromSchedule, scheduleFromGrid } from './schedule-grid';

const MiB = 1024 * 1024;
const BLOCK_SIZES = [4, 8, 16, 32, 64].map((n) => n * MiB);
const CHUNK_SIZES = [256 * 1024, 512 * 1024, MiB, 2 * MiB, 4 * MiB];

export function SettingsScreen() {
  const { t } = useTranslation();
  const settings = useApp((s) => s.settings.settings);
  return (
    <div className="page">
      <Typography.Title level={2} className="page-title">
        {t('settings.title')}
      </Typography.Title>
      <Accounts />
      {settings ? <General settings={settings} /> : <Typography.Text>{t('app.loading')}</Typography.Text>}
    </div>
  );
}

function Accounts() {
  const { t } = useTranslation();
  const accounts = useApp((s) => s.settings.accounts);
  const tests = useApp((s) => s.settings.tests);
  const actions = useActions();
  const [editing, setEditing] = useState<AccountView | 'new' | null>(null);
  return (
    <Card
      size="small"
      title={t('settings.accounts')}
      extra={<Button onClick={() => setEditing('new')}>{t('settings.addAccount')}</Button>}
      style={{ marginBottom: 16 }}
    >
      {accounts.length === 0 ? (
        <Empty description={t('settings.noAccounts')}>
          <Button type="primary" onClick={() => setEditing('new')}>
            {t('settings.addAccount')}
          </Button>
        </Empty>
      ) : (
        <List
          dataSource={accounts}
          renderItem={(a) => {
            const test = tests[a.id];
            return (
              <List.Item
                actions={[
                  <Button
                    key="test"
                    size="small"
                    loading={test === 'running'}
                    onClick={() => void actions.settings.testAccount(a.id)}
                  >
                    {test === 'running' ? t('settings.testing') : t('settings.test')}
                  </Button>,
                  !a.isLocal && (
                    <Button key="edit" size="small" onClick={() => setEditing(a)}>
                      {t('settings.editAccount')}
                    </Button>
                  ),
                  !a.isLocal && (
                    <Popconfirm
                      key="remove"
                      title={t('settings.confirmRemoveAccount', { name: a.name })}
                      onConfirm={() => void actions.settings.removeAccount(a.id)}
                      okText={t('app.yes')}
                      cancelText={t('app.no')}
                    >
                      <Button size="small" danger>
                        {t('settings.removeAccount')}
                      </Button>
                    </Popconfirm>
                  ),
                ].filter(Boolean)}
              >
                <List.Item.Meta
                  title={
                    <Space>
                      {a.name}
                      {a.isLocal && <Tag color="processing">{t('settings.local')}</Tag>}
                      {a.isDefault && <Tag color="success">{t('settings.default')}</Tag>}
                    </Space>
                  }
                  description={
                    <>
                      <div>{a.uploadUrl}</div>
                      <div>
                        {t('app.labelValue', {
                          label: t('settings.account.secretKey'),
                          value: a.secret
                            ? secretSummaryText(t, a.secret)
                            : a.hasSecret
                              ? t('settings.account.secretSet')
                              : t('settings.account.secretNotSet'),
                        })}
                      </div>
                      {test && test !== 'running' && (
                        <ul className="test-results">
                          {test.checks.map((c) => (
                            <li key={c.what}>
                              <Typography.Text type={c.ok ? 'success' : 'danger'}>
                                {c.ok
                                  ? t('settings.testOk', { what: c.what, status: c.status, ms: c.elapsedMs })
                                  : t('settings.testFail', { what: c.what, message: c.message })}
                              </Typography.Text>
                              {c.requestId && <Typography.Text type="secondary"> · {c.requestId}</Typography.Text>}
                            </li>
                          ))}
                        </ul>
                      )}
                    </>
                  }
                />
              </List.Item>
            );
          }}
        />
      )}
      {editing && <AccountForm account={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Card>
  );
}

function General({ settings }: { settings: Settings }) {
  const { t, i18n } = useTranslation();
  const actions = useActions();
  const change = (patch: Partial<Settings>) => void actions.settings.change(patch);
  const { grid, limit } = gridFromSchedule(settings.schedule, defaultLimitedRate(settings.bandwidthLimit));
  return (
    <>
      <Card size="small" title={t('settings.transfers')} style={{ marginBottom: 16 }}>
        <Form layout="horizontal" labelCol={{ span: 8 }} wrapperCol={{ span: 16 }}>
          <Form.Item label={t('settings.filesAtOnce')} extra={t('settings.range', CONCURRENCY_BOUNDS.files)}>
            <InputNumber
              aria-label={t('settings.filesAtOnce')}
              min={CONCURRENCY_BOUNDS.files.min}
              max={CONCURRENCY_BOUNDS.files.max}
              value={settings.concurrency.files}
              onChange={(v) => v && change({ concurrency: { ...settings.concurrency, files: v } })}
            />
          </Form.Item>
          <Form.Item label={t('settings.blocksPerFile')} extra={t('settings.range', CONCURRENCY_BOUNDS.blocksPerFile)}>
            <InputNumber
              aria-label={t('settings.blocksPerFile')}
              min={CONCURRENCY_BOUNDS.blocksPerFile.min}
              max={CONCURRENCY_BOUNDS.blocksPerFile.max}
              value={settings.concurrency.blocksPerFile}
              onChange={(v) => v && change({ concurrency: { ...settings.concurrency, blocksPerFile: v } })}
            />
          </Form.Item>
          <Form.Item label={t('settings.bandwidth')}>
            <InputNumber
              aria-label={t('settings.bandwidth')}
              min={0.1}
              step={0.5}
              value={settings.bandwidthLimit === null ? null : Math.round((settings.bandwidthLimit / MiB) * 10) / 10}
              onChange={(v) => change({ bandwidthLimit: v ? Math.round(v * MiB) : null })}
            />
          </Form.Item>
          <Form.Item label={t('settings.blockSize')}>
            <Select
              aria-label={t('settings.blockSize')}
              value={settings.blockSize}
              onChange={(blockSize) => change({ blockSize })}
              options={BLOCK_SIZES.map((b) => ({ value: b, label: formatBytes(b, i18n.language) }))}
              style={{ width: 120 }}
            />
          </Form.Item>
          <Form.Item label={t('settings.chunkSize')}>
            <Select
              aria-label={t('settings.chunkSize')}
              value={settings.chunkSize ?? 0}
              onChange={(v: number) => change({ chunkSize: v === 0 ? null : v })}
              options={[
                { value: 0, label: t('settings.chunkAuto') },
                ...CHUNK_SIZES.map((c) => ({ value: c, label: formatBytes(c, i18n.language) })),
              ]}
              style={{ width: 180 }}
            />
          </Form.Item>
          <Form.Item label={t('settings.conflict')}>
            <Radio.Group
              value={settings.conflict}
              onChange={(e) => change({ conflict: e.target.value })}
              options={(['skip', 'overwrite', 'rename'] as const).map((c) => ({
                value: c,
                label: t(`settings.conflicts.${c}`),
              }))}
            />
          </Form.Item>
        </Form>
      </Card>
      <Card
        size="small"
        title={t('settings.schedule')}
        style={{ marginBottom: 16 }}
        extra={
          <Switch
            aria-label={t('settings.scheduleOn')}
            checked={settings.schedule !== null}
            onChange={(on) =>
              change({
                schedule: on
                  ? {
                      outside: { action: 'run' },
                      windows: [
                        {
                          startMinute: 9 * 60,
                          endMinute: 18 * 60,
                          action: 'run',
                          bytesPerSecond: limit,
                          days: [1, 2, 3, 4, 5],
                        },
                      ],
                    }
                  : null,
              })
            }
          />
        }
      >
        {settings.schedule !== null && (
          <ScheduleGrid grid={grid} limit={limit} onChange={(g, l) => change({ schedule: scheduleFromGrid(g, l) })} />
        )}
      </Card>
      <Card size="small" title={t('settings.notifications')} style={{ marginBottom: 16 }}>
        <Space orientation="vertical">
          <Toggle
            label={t('settings.notifyBatch')}
            checked={settings.notifications.batchFinished}
            onChange={(v) => change({ notifications: { ...settings.notifications, batchFinished: v } })}
          />
          <Toggle
            label={t('settings.notifyFailures')}
            checked={settings.notifications.failures}
            onChange={(v) => change({ notifications: { ...settings.notifications, failures: v } })}
          />
        </Space>
      </Card>
      <Card size="small" title={t('settings.system')} style={{ marginBottom: 16 }}>
        <Space orientation="vertical">
          <Toggle
            label={t('settings.keepAwake')}
            checked={settings.keepAwake}
            onChange={(keepAwake) => change({ keepAwake })}
          />
          <Toggle
            label={t('settings.launchAtLogin')}
            checked={settings.launchAtLogin}
            onChange={(launchAtLogin) => change({ launchAtLogin })}
          />
          <SecretStoreSetting
            checked={settings.storeSecretsWithoutKeyring}
            onChange={(storeSecretsWithoutKeyring) => change({ storeSecretsWithoutKeyring })}
          />
          <OpenDataFolder />
        </Space>
      </Card>
      <Card size="small" title={`${t('settings.language')} · ${t('settings.theme')}`}>
        <Form layout="horizontal" labelCol={{ span: 8 }} wrapperCol={{ span: 16 }}>
          <Form.Item label={t('settings.language')}>
            <Radio.Group
              value={settings.language}
              onChange={(e) => change({ language: e.target.value })}
              options={(['system', 'en', 'zh-CN'] as const).map((l) => ({
                value: l,
                label: t(`settings.languages.${l}`),
              }))}
            />
          </Form.Item>
          <Form.Item label={t('settings.theme')}>
            <Radio.Group
              value={settings.theme}
              onChange={(e) => change({ theme: e.target.value })}
              options={(['system', 'light', 'dark'] as const).map((l) => ({
                value: l,
                label: t(`settings.themes.${l}`),
              }))}
            />
          </Form.Item>
        </Form>
      </Card>
    </>
  );
}

function Toggle({ label, checked, onChange }: { label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label className="toggle">
      <Switch checked={checked} onChange={onChange} aria-label={label} /> <span>{label}</span>
    </label>
  );
}

/**
 * Where secret keys are kept; where no keyring was found, the choice to store them anyway
 * (weak), with a sentence saying what that means.
 */
function SecretStoreSetting({ checked, onChange }: { checked: boolean; onChange: (v: boolean) => void }) {
  const { t } = useTranslation();
  const info = useApp((s) => s.app.status?.secretStore);
  if (!info) return null;
  const noKeyring = info.kind === 'session' || info.kind === 'weak';
  return (
    <Space orientation="vertical" size={2}>
      <Typography.Text data-testid="settings-secret-store" data-kind={info.kind}>
        {t('settings.secretStore.label')}: {secretStoreText(t, info)}
      </Typography.Text>
      {noKeyring && (
        <>
          <Toggle label={t('settings.secretStore.weakToggle')} checked={checked} onChange={onChange} />
          <Typography.Text type="secondary">{t('settings.secretStore.weakHelp')}</Typography.Text>
        </>
      )}
    </Space>
  );
}

function OpenDataFolder() {
  const { t } = useTranslation();
  const can = useApp((s) => s.app.status?.can.openDataFolder ?? false);
  const dataDir = useApp((s) => s.app.status?.dataDir ?? '');
  const actions = useActions();
  return (
    <Space>
      <Typography.Text type="secondary">{dataDir}</Typography.Text>
      {can && <Button onClick={() => void actions.app.openDataFolder()}>{t('settings.openDataFolder')}</Button>}
    </Space>
  );
}
