/**
 * Numbers as people read them, per locale. Bytes and speeds come from src-main/shared/units.ts,
 * the formatter the tray and the command line use too ("3.2 MB/s" in every language, 1 MB =
 * 1024² bytes).
 */
import { numberFormat } from '../../src-main/shared/units';
export { formatBytes, formatSpeed } from '../../src-main/shared/units';

/** A count with the locale's grouping: 50000 → "50,000". */
export function formatCount(n: number, locale = 'en'): string {
  return numberFormat(locale, 0).format(n);
}

/** One formatter per locale: every moving row's progress bar calls formatPercent on each progress batch. */
const percentFormats = new Map<string, Intl.NumberFormat>();

/** 0.456 → "46%". */
export function formatPercent(fraction: number, locale = 'en'): string {
  let nf = percentFormats.get(locale);
  if (!nf) {
    nf = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
    percentFormats.set(locale, nf);
  }
  return nf.format(fraction);
}

/**
 * Seconds left as the two largest units: 42 → "42 s", 3725 → "1 h 2 min"; in Chinese
 * "1小时2分钟". null, negative or 0 → null (the caller hides the ETA rather than show "0 s").
 */
export function formatEta(seconds: number | null, locale = 'en'): string | null {
  if (seconds === null || !Number.isFinite(seconds) || seconds <= 0) return null;
  const s = Math.round(seconds);
  const parts: Array<[number, 'day' | 'hour' | 'minute' | 'second']> = [
    [Math.floor(s / 86400), 'day'],
    [Math.floor((s % 86400) / 3600), 'hour'],
    [Math.floor((s % 3600) / 60), 'minute'],
    [s % 60, 'second'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  const shown = parts.slice(first, first + 2).filter(([n]) => n > 0);
  const zh = locale.toLowerCase().startsWith('zh');
  return shown.map(([n, unit]) => (zh ? `${n}${ZH_UNITS[unit]}` : `${n} ${EN_UNITS[unit]}`)).join(zh ? '' : ' ');
}
const EN_UNITS = { day: 'd', hour: 'h', minute: 'min', second: 's' } as const;
const ZH_UNITS = { day: '天', hour: '小时', minute: '分钟', second: '秒' } as const;

/** A moment (ms since epoch) as date and time in the locale: "Mar 7, 2025, 2:05 PM" / "2025年3月7日 14:05". */
export function formatDateTime(ms: number, locale = 'en'): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(ms);
}

/** "5 minutes ago" / "5分钟前", for moments within a day; older ones as a date. */
export function formatRelative(ms: number, now: number, locale = 'en'): string {
  const diff = Math.round((ms - now) / 1000);
  const abs = Math.abs(diff);
  if (abs >= 86400) return formatDateTime(ms, locale);
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  if (abs < 60) return rtf.format(diff, 'second');
  if (abs < 3600) return rtf.format(Math.round(diff / 60), 'minute');
  return rtf.format(Math.round(diff / 3600), 'hour');
}

/** The first day of the week in the locale, 0 = Sunday … 6 = Saturday (zh-CN: Monday, en-US: Sunday). */
export function firstDayOfWeek(locale: string): number {
  try {
    const loc = new Intl.Locale(locale) as Intl.Locale & {
      getWeekInfo?: () => { firstDay: number };
      weekInfo?: { firstDay: number };
    };
    const info = loc.getWeekInfo?.() ?? loc.weekInfo;
    if (info) return info.firstDay % 7; // Intl counts 1 = Monday … 7 = Sunday.
  } catch {
    // An unknown locale tag: fall through to the table.
  }
  const region = locale.split('-')[1]?.toUpperCase();
  return region && SUNDAY_FIRST.has(region) ? 0 : locale.startsWith('en') && !region ? 0 : 1;
}
const SUNDAY_FIRST = new Set(['US', 'CA', 'JP', 'TW', 'HK', 'IL', 'BR', 'MX', 'PH', 'IN']);
