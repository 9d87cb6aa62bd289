/** The throughput of the last minutes as a small SVG line (one sample a second). */
import { theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatSpeed } from '../../format/format';
import { HISTORY_SECONDS } from '../../store/transfers';

export function Sparkline({
  samples,
  now,
  width = 240,
  height = 40,
}: {
  samples: Array<{ at: number; bytesPerSecond: number }>;
  now: number;
  width?: number;
  height?: number;
}) {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const max = Math.max(1, ...samples.map((s) => s.bytesPerSecond));
  const span = HISTORY_SECONDS * 1000;
  const x = (at: number) => Math.max(0, width - ((now - at) / span) * width);
  const y = (v: number) => height - 2 - (v / max) * (height - 4);
  const points = samples.map((s) => `${x(s.at).toFixed(1)},${y(s.bytesPerSecond).toFixed(1)}`);
  const current = samples[samples.length - 1]?.bytesPerSecond ?? 0;
  const label = t('transfers.throughputChart', {
    minutes: HISTORY_SECONDS / 60,
    speed: formatSpeed(current, i18n.language),
  });
  return (
    <svg width={width} height={height} role="img" aria-label={label} className="sparkline">
      <title>{label}</title>
      <rect x={0} y={0} width={width} height={height} fill={token.colorFillQuaternary} rx={4} />
      {points.length > 1 && (
        <polyline points={points.join(' ')} fill="none" stroke={token.colorPrimary} strokeWidth={1.5} />
      )}
    </svg>
  );
}
