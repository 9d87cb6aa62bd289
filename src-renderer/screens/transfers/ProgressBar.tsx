/**
 * A transfer's progress: role progressbar with its value in words ("45%, 12.1 MB of 30 MB,
 * 2 min left"); no value while the transfer has not started moving bytes (indeterminate).
 */
import { theme } from 'antd';
import { useTranslation } from 'react-i18next';
import type { TransferState } from '../../../src-main/shared/models';
import { formatBytes, formatEta, formatPercent } from '../../format/format';

const COLORS: Partial<Record<TransferState, 'colorPrimary' | 'colorSuccess' | 'colorError' | 'colorWarning'>> = {
  done: 'colorSuccess',
  failed: 'colorError',
  paused: 'colorWarning',
};

export function ProgressBar(props: {
  bytesDone: number;
  size: number;
  state: TransferState;
  etaSeconds: number | null;
  label: string;
}) {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const lng = i18n.language;
  const started = props.state !== 'queued' && props.state !== 'hashing';
  const fraction = props.size > 0 ? Math.min(1, props.bytesDone / props.size) : props.state === 'done' ? 1 : 0;
  const eta = formatEta(props.etaSeconds, lng);
  const values = {
    percent: formatPercent(fraction, lng),
    done: formatBytes(props.bytesDone, lng),
    size: formatBytes(props.size, lng),
    eta,
  };
  const text = started ? t(eta ? 'transfers.progressEta' : 'transfers.progressText', values) : t('transfers.waiting');
  return (
    <div
      role="progressbar"
      aria-label={props.label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={started ? Math.round(fraction * 100) : undefined}
      aria-valuetext={text}
      className="progress"
      style={{ background: token.colorFillSecondary }}
    >
      <div
        className="progress-fill"
        style={{ width: `${fraction * 100}%`, background: token[COLORS[props.state] ?? 'colorPrimary'] }}
      />
    </div>
  );
}
