/**
 * The detail panel of one transfer: overview (paths, etag check, error), its blocks (done,
 * in flight, waiting, restarted), and the service's last reply with its request id. Reloads
 * every two seconds while the transfer moves.
 */
import { App as AntApp, Button, Descriptions, Drawer, Empty, Space, Tabs, Tooltip, Typography, theme } from 'antd';
import { useEffect, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { TransferDetail } from '../../../src-main/shared/contract';
import { STAGED_COPY_DELETED_STATES, TERMINAL_TRANSFER_STATES } from '../../../src-main/shared/models';
import { ALLOWS_SHORTCUTS } from '../../components/useShortcuts';
import { formatBytes, formatDateTime } from '../../format/format';
import { useActions, useApp } from '../../store/react';

export function Detail(props: { focusAfterClose?: RefObject<(() => void) | null> }) {
  const { t } = useTranslation();
  const detailId = useApp((s) => s.transfers.detailId);
  const detail = useApp((s) => s.transfers.detail);
  const actions = useActions();
  const moving = detail !== null && !TERMINAL_TRANSFER_STATES.includes(detail.state);
  useEffect(() => {
    if (detailId === null || !moving) return;
    const timer = setInterval(() => void actions.transfers.reloadDetail(), 2000);
    return () => clearInterval(timer);
  }, [actions, detailId, moving]);
  return (
    <Drawer
      open={detailId !== null}
      onClose={() => void actions.transfers.openDetail(null)}
      title={detail ? detail.key : t('transfers.detail.title')}
      size="large"
      destroyOnHidden
      // The window's shortcuts work while it is open (Ctrl/Cmd+1…5, ?, Ctrl/Cmd+F); Escape closes it.
      rootClassName={ALLOWS_SHORTCUTS}
      afterOpenChange={(open) => {
        const focus = props.focusAfterClose?.current;
        if (open || !focus) return;
        if (props.focusAfterClose) props.focusAfterClose.current = null;
        // After the drawer gives the focus back to where it was (right after this call).
        setTimeout(focus, 0);
      }}
    >
      {detail ? (
        <Tabs
          items={[
            { key: 'overview', label: t('transfers.detail.overview'), children: <Overview detail={detail} /> },
            { key: 'blocks', label: t('transfers.detail.blocks'), children: <Blocks detail={detail} /> },
            { key: 'reply', label: t('transfers.detail.reply'), children: <Reply detail={detail} /> },
          ]}
        />
      ) : (
        <Typography.Text>{t('app.loading')}</Typography.Text>
      )}
    </Drawer>
  );
}

function Overview({ detail }: { detail: TransferDetail }) {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const accounts = useApp((s) => s.settings.accounts);
  const { message } = useCopy();
  const copy = (text: string) => void navigator.clipboard.writeText(text).then(() => message());
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <Space wrap>
        <Button onClick={() => copy(detail.key)}>{t('transfers.detail.copyKey')}</Button>
        <Tooltip title={detail.url ? undefined : t('transfers.detail.noUrl')}>
          <Button disabled={!detail.url} onClick={() => detail.url && copy(detail.url)}>
            {t('transfers.detail.copyUrl')}
          </Button>
        </Tooltip>
      </Space>
      <Descriptions column={1} size="small" bordered>
        <Descriptions.Item label={t('transfers.columns.state')}>{t(`states.${detail.state}`)}</Descriptions.Item>
        {detail.lastError && (
          <Descriptions.Item label={t('transfers.detail.error')}>
            <Typography.Text type="danger">{detail.lastError.message}</Typography.Text>
          </Descriptions.Item>
        )}
        {detail.warning && (
          <Descriptions.Item label={t('transfers.detail.warning')}>{detail.warning}</Descriptions.Item>
        )}
        {detail.copiedFrom && (
          <Descriptions.Item label={t('transfers.detail.origin')}>
            {t('transfers.detail.copiedFrom', {
              key:
                detail.copiedFrom.bucket === detail.bucket
                  ? detail.copiedFrom.key
                  : `${detail.copiedFrom.bucket}:${detail.copiedFrom.key}`,
            })}
          </Descriptions.Item>
        )}
        <Descriptions.Item label={t('transfers.columns.key')}>{detail.key}</Descriptions.Item>
        <Descriptions.Item label={t('transfers.detail.bucket')}>{detail.bucket}</Descriptions.Item>
        <Descriptions.Item label={t('transfers.detail.account')}>
          {accounts.find((a) => a.id === detail.accountId)?.name ?? detail.accountId}
        </Descriptions.Item>
        {detail.droppedAs === undefined ? (
          <Descriptions.Item label={t('transfers.detail.localPath')}>{detail.localPath}</Descriptions.Item>
        ) : (
          <Descriptions.Item label={t('transfers.detail.droppedAs')}>
            <div data-testid="dropped-as" className="dropped-as">
              <Typography.Text strong>{detail.droppedAs}</Typography.Text>
              <Typography.Text type="secondary">{t('transfers.detail.droppedNote')}</Typography.Text>
              <Typography.Text type="secondary">
                {STAGED_COPY_DELETED_STATES.includes(detail.state)
                  ? t('transfers.detail.stagedCopyDeleted')
                  : t('transfers.detail.stagedCopy', { path: detail.localPath })}
              </Typography.Text>
            </div>
          </Descriptions.Item>
        )}
        <Descriptions.Item label={t('transfers.columns.size')}>{formatBytes(detail.size, lng)}</Descriptions.Item>
        <Descriptions.Item label={t('transfers.detail.source')}>{t(`sources.${detail.source}`)}</Descriptions.Item>
        <Descriptions.Item label={t('transfers.detail.etag')}>{detail.etag ?? '—'}</Descriptions.Item>
        <Descriptions.Item label={t('transfers.detail.etagCheck')}>
          {t(`transfers.detail.etagStates.${detail.etagCheck}`)}
        </Descriptions.Item>
        <Descriptions.Item label={t('transfers.detail.attempts')}>{detail.attempts}</Descriptions.Item>
        <Descriptions.Item label={t('transfers.detail.created')}>
          {formatDateTime(detail.createdAt, lng)}
        </Descriptions.Item>
        <Descriptions.Item label={t('transfers.detail.updated')}>
          {formatDateTime(detail.updatedAt, lng)}
        </Descriptions.Item>
      </Descriptions>
    </Space>
  );
}

function useCopy() {
  const { t } = useTranslation();
  const { message } = AntApp.useApp();
  return { message: () => void message.success(t('app.copied')) };
}

function Blocks({ detail }: { detail: TransferDetail }) {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const lng = i18n.language;
  const count = (s: string) => detail.blocks.filter((b) => b.state === s).length;
  const restarts = detail.blocks.reduce((n, b) => n + b.restarts, 0);
  const color = (state: string, restarted: boolean) =>
    state === 'done'
      ? token.colorSuccess
      : state === 'in-flight'
        ? token.colorPrimary
        : restarted
          ? token.colorWarning
          : token.colorFillSecondary;
  if (detail.blocks.length === 0) return <Empty description={t('transfers.waiting')} />;
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <Typography.Text>
        {t('transfers.detail.blockSize')}: {formatBytes(detail.blockSize, lng)} ·{' '}
        {t('transfers.detail.blockLegend', {
          done: count('done'),
          flight: count('in-flight'),
          waiting: count('waiting'),
          restarts,
        })}
      </Typography.Text>
      <ul className="block-map" aria-label={t('transfers.detail.blocks')}>
        {detail.blocks.map((b) => {
          const label = t('transfers.detail.block', {
            index: b.index,
            state: t(`transfers.detail.blockStates.${b.state}`),
            done: formatBytes(b.bytesDone, lng),
            size: formatBytes(b.size, lng),
            restarts: b.restarts,
          });
          return (
            <li key={b.index} title={label} aria-label={label} style={{ background: color(b.state, b.restarts > 0) }} />
          );
        })}
      </ul>
    </Space>
  );
}

function Reply({ detail }: { detail: TransferDetail }) {
  const { t, i18n } = useTranslation();
  const reply = detail.lastReply;
  if (!reply) return <Empty description={t('transfers.detail.noReply')} />;
  return (
    <Descriptions column={1} size="small" bordered>
      <Descriptions.Item label={t('transfers.detail.status')}>{reply.status ?? '—'}</Descriptions.Item>
      <Descriptions.Item label={t('transfers.detail.requestId')}>
        <Typography.Text copyable={!!reply.requestId}>{reply.requestId ?? '—'}</Typography.Text>
      </Descriptions.Item>
      <Descriptions.Item label={t('transfers.detail.updated')}>
        {formatDateTime(reply.at, i18n.language)}
      </Descriptions.Item>
      <Descriptions.Item label={t('transfers.detail.body')}>
        <pre className="reply-body">{reply.body ?? '—'}</pre>
      </Descriptions.Item>
    </Descriptions>
  );
}
