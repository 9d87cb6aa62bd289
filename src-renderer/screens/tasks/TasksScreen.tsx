/**
 * The Tasks screen: the Fmgr tasks Blocklift follows (state name, how it is followed, items),
 * the detail of one (per-item table, the states seen), "track a persistentId", and a form
 * for each of the eight operations, checked before it is submitted.
 */
import { Button, Card, Empty, Input, Space, Table, Tag, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FmgrTaskView } from '../../../src-main/shared/task-views';
import { formatDateTime } from '../../format/format';
import { failedItems, taskOutcome } from '../../store/outcomes';
import { useActions, useApp } from '../../store/react';
import { OpForm } from './OpForm';
import { TaskDetail } from './TaskDetail';

const TRACKING_COLORS: Record<FmgrTaskView['tracking'], string> = {
  active: 'processing',
  done: 'success',
  lost: 'warning',
  failed: 'error',
  stopped: 'default',
};

export function TrackingTag({ tracking }: { tracking: FmgrTaskView['tracking'] }) {
  const { t } = useTranslation();
  return (
    <Tooltip title={t(`tasks.trackingHelp.${tracking}`)}>
      <Tag color={TRACKING_COLORS[tracking]}>{t(`tasks.tracking.${tracking}`)}</Tag>
    </Tooltip>
  );
}

/**
 * What the task came to: its tracking, unless its operations failed (the task code, e.g. 6
 * "notification succeeded", says only that it ended): then Failed or Partly failed, in red.
 */
export function OutcomeTag({ task }: { task: FmgrTaskView }) {
  const { t } = useTranslation();
  const outcome = taskOutcome(task);
  if (outcome !== 'failed' && outcome !== 'partial') return <TrackingTag tracking={outcome} />;
  return (
    <Tooltip title={t(`tasks.outcomeHelp.${outcome}`)}>
      <Tag color={outcome === 'failed' ? 'error' : 'warning'} data-testid="task-outcome">
        {t(`tasks.outcome.${outcome}`)}
      </Tag>
    </Tooltip>
  );
}

/** The failed operations of a task and their errors, in one line; nothing when none failed. */
export function FailedItemsText({ task }: { task: FmgrTaskView }) {
  const { t } = useTranslation();
  const failed = failedItems(task);
  if (failed.length === 0) return null;
  const errors = [...new Set(failed.map((i) => i.error || i.description || i.state))].join('; ');
  return (
    <Typography.Text type="danger" className="task-failed-items" data-testid="task-failed-items">
      {t('tasks.failedItems', { failed: failed.length, total: task.items.length, errors })}
    </Typography.Text>
  );
}

/** What a task the upload engine submitted for a transfer was for (issue 19's copy on the service); null for any other task. */
export function ForTransferLabel({ task }: { task: FmgrTaskView }) {
  const { t } = useTranslation();
  if (!task.forTransfer) return null;
  const kind = task.op === 'delete' ? 'delete' : 'copy';
  return (
    <Typography.Text type="secondary" className="task-for-transfer">
      {t(`tasks.forTransfer.${kind}`, { id: task.forTransfer.transferId, key: task.forTransfer.key })}
    </Typography.Text>
  );
}

export function TasksScreen() {
  const { t, i18n } = useTranslation();
  const tasks = useApp((s) => s.tasks.tasks);
  const loaded = useApp((s) => s.tasks.loaded);
  const openId = useApp((s) => s.tasks.openId);
  const actions = useActions();
  const [persistentId, setPersistentId] = useState('');
  const open = tasks.find((x) => x.id === openId) ?? null;
  return (
    <div className="page">
      <Typography.Title level={2} className="page-title">
        {t('tasks.title')}
      </Typography.Title>
      <div className="tasks-forms">
        <Card size="small" title={t('tasks.track')}>
          <Space.Compact className="track-field">
            <Input
              aria-label={t('tasks.persistentId')}
              placeholder={t('tasks.persistentId')}
              value={persistentId}
              onChange={(e) => setPersistentId(e.target.value)}
              spellCheck={false}
            />
            <Button
              type="primary"
              disabled={persistentId.trim() === ''}
              onClick={() => void actions.tasks.track(persistentId.trim()).then((task) => task && setPersistentId(''))}
            >
              {t('tasks.track')}
            </Button>
          </Space.Compact>
        </Card>
        <OpForm />
      </div>
      {loaded && tasks.length === 0 ? (
        <Empty
          className="empty"
          description={t('app.twoSentences', { first: t('tasks.empty'), second: t('tasks.emptyHint') })}
        />
      ) : (
        <Table<FmgrTaskView>
          size="small"
          className="tasks-table"
          rowKey="id"
          dataSource={tasks}
          pagination={{ pageSize: 20, hideOnSinglePage: true }}
          onRow={(task) => ({ onClick: () => void actions.tasks.open(task.id), style: { cursor: 'pointer' } })}
          rowClassName={(task) => (task.id === openId ? 'ant-table-row-selected' : '')}
          columns={[
            {
              title: t('tasks.columns.id'),
              dataIndex: 'persistentId',
              render: (id: string, task) => (
                <Button type="link" size="small" className="task-id" onClick={() => void actions.tasks.open(task.id)}>
                  {id}
                </Button>
              ),
            },
            {
              title: t('tasks.columns.op'),
              render: (_, task) => (
                <span>
                  {task.op ?? task.fops ?? '—'}
                  {task.forTransfer && (
                    <>
                      <br />
                      <ForTransferLabel task={task} />
                    </>
                  )}
                </span>
              ),
            },
            {
              title: t('tasks.columns.state'),
              render: (_, task) => (
                <span>
                  {task.state ?? '—'}{' '}
                  {task.code !== null && <Typography.Text type="secondary">({task.code})</Typography.Text>}
                  {task.error && <Typography.Text type="danger"> {task.error.message}</Typography.Text>}
                  {failedItems(task).length > 0 && (
                    <>
                      <br />
                      <FailedItemsText task={task} />
                    </>
                  )}
                </span>
              ),
            },
            { title: t('tasks.columns.tracking'), render: (_, task) => <OutcomeTag task={task} /> },
            { title: t('tasks.columns.items'), render: (_, task) => task.items.length },
            { title: t('tasks.columns.created'), render: (_, task) => formatDateTime(task.createdAt, i18n.language) },
          ]}
        />
      )}
      {open && <TaskDetail task={open} />}
    </div>
  );
}
