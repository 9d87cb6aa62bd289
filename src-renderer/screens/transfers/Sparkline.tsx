/**
 * The throughput of the last minutes as a small SVG line (one sample a second) over a
 * baseline, from the first batch on; before any byte was measured it says why it is flat
 * ("Measuring…" while transfers run, "No upload running" otherwise) rather than stay an
 * empty box.
 */
import { theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatSpeed } from '../../format/format';
import { HISTORY_SECONDS } from '../../store/transfers';
import { sparkNote, sparkPoints, type SparkSample } from './spark';

export function Sparkline({
  samples,
  now,
  active,
  width = 240,
  height = 40,
}: {
  samples: SparkSample[];
  now: number;
  /** Transfers are queued or running (a flat line then means "not measured yet"). */
  active: boolean;
  width?: number;
  height?: number;
}) {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const points = sparkPoints(samples, now, width, height);
  const note = sparkNote(samples, active);
  // The speed now, as a dot at the line's end (the line alone is invisible while it has one point).
  const last = points.at(-1)?.split(',').map(Number) as [number, number] | undefined;
  const current = samples[samples.length - 1]?.bytesPerSecond ?? 0;
  const label = t('transfers.throughputChart', {
    minutes: HISTORY_SECONDS / 60,
    speed: formatSpeed(current, i18n.language),
  });
  return (
    <svg
      width={width}
      height={height}
      role="img"
      aria-label={label}
      className="sparkline"
      data-note={note ?? undefined}
    >
      <title>{label}</title>
      <rect x={0} y={0} width={width} height={height} fill={token.colorFillQuaternary} rx={4} />
      <line x1={4} x2={width - 4} y1={height - 2} y2={height - 2} stroke={token.colorBorder} strokeWidth={1} />
      {note && (
        <text
          x={width / 2}
          y={height / 2 + 4}
          textAnchor="middle"
          fontSize={12}
          fill={token.colorTextSecondary}
          aria-hidden="true"
        >
          {t(`transfers.spark.${note}`)}
        </text>
      )}
      {points.length > 1 && (
        <polyline points={points.join(' ')} fill="none" stroke={token.colorPrimary} strokeWidth={1.5} />
      )}
      {last && <circle cx={Math.min(width - 2.5, last[0])} cy={last[1]} r={2.5} fill={token.colorPrimary} />}
    </svg>
  );
}
