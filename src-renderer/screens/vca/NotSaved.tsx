/**
 * The decisions of the job under review that the service did not save (refused, or not
 * reachable): each with its label, the decision and the service's words, and Retry; Retry all
 * when there are several. Their labels keep the decision the reviewer made and say "Not saved".
 */
import { Alert, Button, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { VcaJobView } from '../../../src-main/shared/task-views';
import { errorText } from '../../components/errors';
import { useActions, useApp } from '../../store/react';

export function NotSaved(props: { job: VcaJobView }) {
  const { t } = useTranslation();
  const actions = useActions();
  const decisions = useApp((s) => s.vca.decisions);
  const failed = decisions.filter((d) => d.state === 'failed' && d.jobId === props.job.id);
  if (failed.length === 0) return null;
  const labels = new Map(props.job.results.flatMap((g) => g.labels).map((l) => [l.id, l]));
  return (
    <Alert
      type="error"
      showIcon
      data-testid="vca-not-saved"
      title={t('vca.notSavedTitle', { count: failed.length })}
      description={
        <Space orientation="vertical" size={4}>
          {failed.map((d) => (
            <Space key={d.id} wrap>
              <Typography.Text>
                {t('vca.notSavedItem', {
                  label: d.changes.map((c) => labels.get(c.labelId)?.attribute ?? c.labelId).join(', '),
                  decision: t(`vca.decision.${d.changes[0]?.decision ?? 'pending'}`),
                  message: d.error ? errorText(t, d.error) : '',
                })}
              </Typography.Text>
              <Button size="small" onClick={() => void actions.vca.retryDecision(d.id)}>
                {t('vca.retry')}
              </Button>
            </Space>
          ))}
          {failed.length > 1 && (
            <Button size="small" onClick={() => failed.forEach((d) => void actions.vca.retryDecision(d.id))}>
              {t('vca.retryAll')}
            </Button>
          )}
        </Space>
      }
    />
  );
}
