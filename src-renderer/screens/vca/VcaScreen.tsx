/**
 * The Video review screen: VCA jobs (analysing, failed with the reason, done), the review of
 * one job (player beside its labels grouped by type), the review queue's progress, the label
 * browser across jobs, and export. The review's keys are in the keymap (components/keymap.ts).
 */
import { Button, Empty, List, Progress, Space, Tag, Typography, theme } from 'antd';
import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useApp } from '../../store/react';
import { jobFailure, jobPhase } from '../../store/outcomes';
import { reviewProgress } from '../../store/vca';
import { CreateForm } from './CreateForm';
import { LabelBrowser } from './LabelBrowser';
import { Review } from './Review';

const PHASE_COLORS = { analysing: 'processing', failed: 'error', done: 'success' } as const;

export function VcaScreen() {
  const { t } = useTranslation();
  const jobs = useApp((s) => s.vca.jobs);
  const loaded = useApp((s) => s.vca.loaded);
  const currentId = useApp((s) => s.vca.currentId);
  const actions = useActions();
  const { token } = theme.useToken();
  const progress = reviewProgress(jobs);
  const exportAll = async (format: 'csv' | 'json') => {
    const ids = jobs.filter((j) => jobPhase(j) === 'done').map((j) => j.id);
    const file = await actions.vca.exportJobs(ids, format);
    if (file) download(file.fileName, file.mimeType, file.content);
  };
  return (
    <div className="page page-wide">
      <Typography.Title level={2} className="page-title">
        {t('vca.title')}
      </Typography.Title>
      <Space wrap style={{ marginBottom: 12 }}>
        <CreateForm />
        {progress.total > 0 && (
          <Space>
            <Progress
              type="circle"
              size={36}
              percent={Math.round((progress.reviewed / progress.total) * 100)}
              aria-label={t('vca.queue', progress)}
            />
            <Typography.Text data-testid="review-queue">{t('vca.queue', progress)}</Typography.Text>
          </Space>
        )}
        <Button onClick={() => void exportAll('csv')} disabled={jobs.length === 0}>
          {t('vca.exportCsv')}
        </Button>
        <Button onClick={() => void exportAll('json')} disabled={jobs.length === 0}>
          {t('vca.exportJson')}
        </Button>
      </Space>
      {loaded && jobs.length === 0 ? (
        <Empty
          className="empty"
          description={t('app.twoSentences', { first: t('vca.empty'), second: t('vca.emptyHint') })}
        />
      ) : (
        <div className="vca-layout">
          <nav
            aria-label={t('vca.jobs')}
            className="vca-jobs"
            style={
              {
                '--vca-current-bg': token.controlItemBgActive,
                '--vca-current-bar': token.colorPrimary,
              } as CSSProperties
            }
          >
            <List
              size="small"
              bordered
              dataSource={jobs}
              renderItem={(job) => {
                const phase = jobPhase(job);
                const failure = jobFailure(job);
                return (
                  <List.Item className={job.id === currentId ? 'vca-job current' : 'vca-job'}>
                    <Button
                      type="text"
                      block
                      className="vca-job-button"
                      aria-current={job.id === currentId ? 'true' : undefined}
                      onClick={() => actions.vca.open(job.id)}
                    >
                      <div className="vca-job-name">{job.sourceUrl?.split('/').pop() ?? job.jobId}</div>
                      <Tag color={PHASE_COLORS[phase]}>{t(`vca.states.${phase}`)}</Tag>
                      {phase === 'failed' && (
                        <Typography.Text type="danger" className="vca-job-error" data-testid="vca-job-failure">
                          {failure ? t('vca.failedBecause', { reason: failure }) : t('vca.failedNoReason')}
                        </Typography.Text>
                      )}
                    </Button>
                  </List.Item>
                );
              }}
            />
          </nav>
          <Review />
        </div>
      )}
      <LabelBrowser />
    </div>
  );
}

/** Saves text as a file through a temporary link (works in Electron and in a browser). */
function download(fileName: string, mimeType: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mimeType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
