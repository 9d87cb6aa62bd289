/** One Fmgr task: how it is followed, its items, and every state seen (poll or notification). */
import { Card, Descriptions, Table, Timeline, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { FmgrItemView, FmgrTaskView } from '../../../src-main/shared/task-views';
import { formatBytes, formatDateTime, formatRelative } from '../../format/format';
import { useActions, useApp } from '../../store/react';
import { itemFailed } from '../../store/outcomes';
import { FailedItemsText, ForTransferLabel, OutcomeTag } from './TasksScreen';

export function TaskDetail({ task }: { task: FmgrTaskView }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const history = useApp((s) => s.tasks.history);
  const actions = useActions();
  return (
    <Card
      size="small"
      style={{ marginTop: 16 }}
      title={task.persistentId}
      extra={<Typography.Link onClick={() => void actions.tasks.open(null)}>{t('app.close')}</Typography.Link>}
    >
      <Descriptions size="small" column={2} bordered>
        <Descriptions.Item label={t('tasks.columns.tracking')}>
          <OutcomeTag task={task} /> {t(`tasks.origin.${task.origin}`)}
        </Descriptions.Item>
        <Descriptions.Item label={t('tasks.columns.state')}>
          {task.state ?? '—'} {task.code !== null ? `(${task.code})` : ''} {task.description ?? ''}{' '}
          <FailedItemsText task={task} />
        </Descriptions.Item>
        <Descriptions.Item label={t('tasks.polls', { count: task.polls })}>
          {task.nextPollAt ? t('tasks.nextPoll', { when: formatRelative(task.nextPollAt, Date.now(), lng) }) : '—'}
        </Descriptions.Item>
        <Descriptions.Item label={t('tasks.columns.op')}>{task.fops ?? task.op ?? '—'}</Descriptions.Item>
        {task.forTransfer && (
          <Descriptions.Item label={t('tasks.columns.forTransfer')} span={2}>
            <ForTransferLabel task={task} />
          </Descriptions.Item>
        )}
        {task.error && (
          <Descriptions.Item label={t('tasks.columns.error')} span={2}>
            <Typography.Text type="danger">{task.error.message}</Typography.Text>
          </Descriptions.Item>
        )}
      </Descriptions>
      <Table<FmgrItemView>
        size="small"
        style={{ marginTop: 12 }}
        rowKey="index"
        rowClassName={(item) => (itemFailed(item) ? 'task-item-failed' : '')}
        pagination={false}
        dataSource={task.items}
        scroll={{ x: true }}
        columns={[
          { title: t('tasks.columns.cmd'), dataIndex: 'cmd' },
          { title: t('tasks.columns.code'), dataIndex: 'code' },
          { title: t('tasks.columns.state'), dataIndex: 'state' },
          {
            title: t('tasks.columns.error'),
            render: (_, item) =>
              item.error ? (
                <Typography.Text type="danger">{item.error}</Typography.Text>
              ) : itemFailed(item) ? (
                <Typography.Text type="danger">{item.description || item.state}</Typography.Text>
              ) : null,
          },
          { title: t('tasks.columns.key'), dataIndex: 'key' },
          {
            title: t('tasks.columns.size'),
            render: (_, item) => (item.fsize === null ? '' : formatBytes(item.fsize, lng)),
          },
          { title: t('tasks.columns.hash'), dataIndex: 'hash' },
          { title: t('tasks.columns.url'), dataIndex: 'url' },
          { title: t('tasks.columns.decompress'), dataIndex: 'decompresslist' },
        ]}
      />
      <Typography.Title level={5} style={{ marginTop: 12 }}>
        {t('tasks.history')}
      </Typography.Title>
      <Timeline
        items={history.map((h) => ({
          content: `${formatDateTime(h.at, lng)} · ${h.state} (${h.code}) · ${t(`tasks.via.${h.source}`)}`,
        }))}
      />
    </Card>
  );
}
