/**
 * A transfer's progress: role progressbar with its value in words ("45%, 12.1 MB of 30 MB,
 * 2 min left"); no value while the transfer has not started moving bytes (indeterminate).
 * The fill is scaled with `transform` (no layout when it moves), coloured by its state
 * through the list's CSS variables; `t` and `lng` come from the row.
 */
import type { TFunction } from 'i18next';
import { memo } from 'react';
import type { TransferState } from '../../../src-main/shared/models';
import { formatBytes, formatEta, formatPercent } from '../../format/format';

export const ProgressBar = memo(function ProgressBar(props: {
  bytesDone: number;
  size: number;
  state: TransferState;
  etaSeconds: number | null;
  label: string;
  t: TFunction;
  lng: string;
}) {
  const { t, lng } = props;
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
    >
      <div className={`progress-fill progress-${props.state}`} style={{ transform: `scaleX(${fraction})` }} />
    </div>
  );
});
