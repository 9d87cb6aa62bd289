/** The plan of a folder being added: counts and bytes per kind, time at the current speed; Start repeats them. */
import { Descriptions, Modal, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatCount, formatEta, formatSpeed } from '../../format/format';
import { useActions, useApp } from '../../store/react';

const COUNTS = ['newFiles', 'changedFiles', 'unchangedFiles', 'ignoredFiles', 'rejectedFiles', 'renamedFiles'] as const;
const BYTES: Partial<Record<(typeof COUNTS)[number], 'newBytes' | 'changedBytes' | 'unchangedBytes' | 'ignoredBytes'>> =
  {
    newFiles: 'newBytes',
    changedFiles: 'changedBytes',
    unchangedFiles: 'unchangedBytes',
    ignoredFiles: 'ignoredBytes',
  };

export function PlanModal() {
  const { t, i18n } = useTranslation();
  const lng = i18n.language;
  const draft = useApp((s) => s.folders.draft);
  const actions = useActions();
  const plan = draft?.plan ?? null;
  const files = plan ? formatCount(plan.filesToUpload, lng) : '';
  const bytes = plan ? formatBytes(plan.bytesToUpload, lng) : '';
  return (
    <Modal
      open={draft !== null}
      title={draft ? t('folders.planTitle', { path: draft.input.path }) : ''}
      okText={t('folders.start', { files, bytes })}
      okButtonProps={{ disabled: !plan }}
      cancelText={t('app.cancel')}
      onOk={() => void actions.folders.confirm()}
      onCancel={actions.folders.cancelDraft}
      width={640}
    >
      {!plan ? (
        <Spin tip={t('folders.planning')}>
          <div style={{ height: 80 }} />
        </Spin>
      ) : (
        <>
          <Typography.Title level={4}>{t('folders.planLine', { files, bytes })}</Typography.Title>
          {plan.estimatedSeconds !== null && (
            <Typography.Paragraph>
              {t('folders.planEta', {
                eta: formatEta(plan.estimatedSeconds, lng) ?? '—',
                speed: formatSpeed(plan.assumedBytesPerSecond, lng),
                source: t(`folders.speedSource.${plan.speedSource}`),
              })}
            </Typography.Paragraph>
          )}
          <Descriptions column={2} size="small" bordered>
            {COUNTS.map((k) => {
              const b = BYTES[k];
              return (
                <Descriptions.Item key={k} label={t(`folders.planCounts.${k}`)}>
                  {formatCount(plan[k], lng)}
                  {b ? ` · ${formatBytes(plan[b], lng)}` : ''}
                </Descriptions.Item>
              );
            })}
          </Descriptions>
        </>
      )}
    </Modal>
  );
}
