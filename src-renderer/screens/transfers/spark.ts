/**
 * The pure part of the throughput sparkline: where its line runs, and what it says while
 * there is no line worth drawing yet. A batch comes only when something changed, so the last
 * sample holds until `now` (the line reaches the right edge from the first batch on).
 */
import { HISTORY_SECONDS } from '../../store/transfers';

export interface SparkSample {
  at: number;
  bytesPerSecond: number;
}

/** The line's points ("x,y") in a width × height box: the samples of the last HISTORY_SECONDS, the last one carried to `now`. */
export function sparkPoints(samples: readonly SparkSample[], now: number, width: number, height: number): string[] {
  if (samples.length === 0) return [];
  const max = Math.max(1, ...samples.map((s) => s.bytesPerSecond));
  const span = HISTORY_SECONDS * 1000;
  const x = (at: number) => Math.min(width, Math.max(0, width - ((now - at) / span) * width));
  const y = (v: number) => height - 2 - (v / max) * (height - 4);
  const last = samples[samples.length - 1]!;
  const held = last.at < now ? [...samples, { at: now, bytesPerSecond: last.bytesPerSecond }] : samples;
  return held.map((s) => `${x(s.at).toFixed(1)},${y(s.bytesPerSecond).toFixed(1)}`);
}

/**
 * What the chart says over its baseline before it has anything to show: 'measuring' while
 * transfers run but no byte was measured yet, 'idle' when none runs and none moved in the
 * last minutes; null once a speed was measured (the line speaks).
 */
export function sparkNote(samples: readonly SparkSample[], active: boolean): 'measuring' | 'idle' | null {
  if (samples.some((s) => s.bytesPerSecond > 0)) return null;
  return active ? 'measuring' : 'idle';
}
