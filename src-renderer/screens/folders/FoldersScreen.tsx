/**
 * The Folders screen: one card per watched folder (state and why, counts, rejected files,
 * pause / resume / rescan / options / stop watching), and "add a folder", which shows the
 * plan (the dry run) before anything uploads.
 */
import { FolderOpenOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Form, Input, Popconfirm, Space, Statistic, Table, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { WatchRootView } from '../../../src-main/shared/contract';
import { keyRejectText, rootReasonText } from '../../components/errors';
import { formatCount, formatRelative } from '../../format/format';
import { useActions, useApp } from '../../store/react';
import { rootCounts } from '../../store/folders';
import { FolderBrowser } from './FolderBrowser';
import { OptionsDrawer } from './OptionsDrawer';
import { PlanModal } from './PlanModal';

export function FoldersScreen() {
  const { t } = useTranslation();
  const roots = useApp((s) => s.folders.roots);
  const loaded = useApp((s) => s.folders.loaded);
  const [editing, setEditing] = useState<WatchRootView | null>(null);
  return (
    <div className="page">
      <Typography.Title level={2} className="page-title">
        {t('folders.title')}
      </Typography.Title>
      <AddFolderForm />
      {loaded && roots.length === 0 ? (
        <Empty
          className="empty"
          description={t('app.twoSentences', { first: t('folders.empty'), second: t('folders.emptyHint') })}
        />
      ) : (
        <Space orientation="vertical" style={{ width: '100%' }}>
          {roots.map((root) => (
            <RootCard key={root.id} root={root} onEdit={() => setEditing(root)} />
          ))}
        </Space>
      )}
      <PlanModal />
      <FolderBrowser />
      {editing && <OptionsDrawer root={editing} onClose={() => setEditing(null)} />}
    </div>
  );
}

interface AddValues {
  path: string;
  bucket: string;
  prefix: string;
}

/**
 * The folder to add: typed, or chosen ("Choose folder…": the system's dialog on the desktop,
 * the screen's folder browser in a browser). "See what it would upload" opens the plan, where
 * its options are set before anything uploads.
 */
function AddFolderForm() {
  const { t } = useTranslation();
  const actions = useActions();
  const emulator = useApp((s) => s.app.status?.emulator ?? null);
  const canChoose = useApp((s) => s.app.status?.can.chooseFolder ?? false);
  const chosen = useApp((s) => s.folders.chosen);
  const [form] = Form.useForm<AddValues>();
  useEffect(() => {
    if (chosen) form.setFieldValue('path', chosen.path);
  }, [chosen, form]);
  return (
    <Card size="small" title={t('folders.add')} style={{ marginBottom: 16 }}>
      <Form
        form={form}
        name="add-folder"
        layout="inline"
        initialValues={{ path: '', bucket: emulator ? 'local' : '', prefix: '' }}
        onFinish={(v: AddValues) =>
          void actions.folders.plan({
            path: v.path.trim(),
            bucket: v.bucket.trim(),
            prefix: v.prefix.trim() || undefined,
          })
        }
      >
        {/* The path stays for typing; "Choose folder…" sits beside it and fills it in. */}
        <Form.Item label={t('folders.path')} required>
          <Space.Compact>
            <Form.Item name="path" noStyle rules={[{ required: true, whitespace: true }]}>
              <Input
                style={{ width: 320 }}
                spellCheck={false}
                placeholder="/home/me/Pictures"
                aria-label={t('folders.path')}
              />
            </Form.Item>
            {canChoose && (
              <Button
                icon={<FolderOpenOutlined />}
                onClick={() => void actions.folders.chooseFolder(form.getFieldValue('path')?.trim() || undefined)}
              >
                {t('folders.choose')}
              </Button>
            )}
          </Space.Compact>
        </Form.Item>
        <Form.Item name="bucket" label={t('folders.bucket')} rules={[{ required: true, whitespace: true }]}>
          <Input style={{ width: 140 }} spellCheck={false} />
        </Form.Item>
        <Form.Item name="prefix" label={t('folders.prefix')}>
          <Input style={{ width: 140 }} spellCheck={false} />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit">
            {t('folders.plan')}
          </Button>
        </Form.Item>
      </Form>
    </Card>
  );
}

const STATE_COLORS: Record<string, string> = { watching: 'success', paused: 'warning', unavailable: 'error' };

function RootCard({ root, onEdit }: { root: WatchRootView; onEdit: () => void }) {
  const { t, i18n } = useTranslation();
  const actions = useActions();
  const lng = i18n.language;
  const stateText = root.scanning
    ? t('folders.states.scanning', { files: formatCount(root.scanning.files, lng) })
    : t(`folders.states.${root.state}`);
  const why = root.pausedBy ? t(`folders.pausedBy.${root.pausedBy}`) : null;
  // A paused folder's reason is `why`, next to its title; the card does not say it twice.
  const reason = why ? null : rootReasonText(t, root);
  return (
    <Card
      size="small"
      className="root-card"
      title={
        <Space wrap>
          <span className="root-path">{root.path}</span>
          <Tag color={root.scanning ? 'processing' : (STATE_COLORS[root.state] ?? 'default')}>{stateText}</Tag>
          {why && <Typography.Text type="secondary">{why}</Typography.Text>}
        </Space>
      }
      extra={
        <Space wrap>
          {root.state === 'paused' ? (
            <Button size="small" onClick={() => void actions.folders.resume({ id: root.id })}>
              {t('folders.resume')}
            </Button>
          ) : (
            <Button size="small" onClick={() => void actions.folders.pause({ id: root.id })}>
              {t('folders.pause')}
            </Button>
          )}
          <Button size="small" onClick={() => void actions.folders.rescan({ id: root.id })}>
            {t('folders.rescan')}
          </Button>
          <Button size="small" onClick={onEdit}>
            {t('folders.edit')}
          </Button>
          <Popconfirm
            title={t('folders.confirmRemove', { path: root.path })}
            onConfirm={() => void actions.folders.remove(root.id)}
            okText={t('app.yes')}
            cancelText={t('app.no')}
          >
            <Button size="small" danger>
              {t('folders.remove')}
            </Button>
          </Popconfirm>
        </Space>
      }
    >
      {reason && (
        // The English reason on hover, as the rejected files' messages.
        <Typography.Paragraph type="danger" title={root.reason ?? undefined}>
          {reason}
        </Typography.Paragraph>
      )}
      <Typography.Paragraph type="secondary">
        {root.bucket}/{root.prefix} ·{' '}
        {root.lastScanAt
          ? t('folders.lastScan', { when: formatRelative(root.lastScanAt, Date.now(), lng) })
          : t('folders.neverScanned')}
      </Typography.Paragraph>
      <Space size="large" wrap>
        {rootCounts(root).map(([k, n]) => (
          <Statistic key={k} title={t(`folders.counts.${k}`)} value={formatCount(n, lng)} />
        ))}
      </Space>
      {root.rejected.length > 0 && (
        <Table
          size="small"
          style={{ marginTop: 12 }}
          title={() => t('folders.rejectedTitle')}
          pagination={false}
          rowKey="relPath"
          dataSource={root.rejected}
          columns={[
            { title: t('folders.path'), dataIndex: 'relPath' },
            {
              title: t('transfers.detail.error'),
              dataIndex: 'message',
              // The row's English message, with its detail, on hover.
              render: (message: string, r: WatchRootView['rejected'][number]) => (
                <span title={message}>{keyRejectText(t, lng, r)}</span>
              ),
            },
          ]}
        />
      )}
    </Card>
  );
}
