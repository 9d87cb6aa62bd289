/**
 * Numbers as people read them, per locale. Bytes, speeds and times left come from
 * src-main/common/units.ts, the formatter the tray and the command line use too ("3.2 MB/s" in
 * every language, 1 MB = 1024² bytes; "1 h 2 min").
 */
import { numberFormat } from '../../src-main/common/units';
export { formatBytes, formatEta, formatSpeed } from '../../src-main/common/units';

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
