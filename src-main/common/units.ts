/**
 * Bytes, speeds and times left as people read them, the one formatter of the window, the tray
 * and the command line (so one throughput is one number everywhere). Binary multiples, as the
 * service's block sizes are: 1 KB = 1,024 B, 1 MB = 1,024 KB; written "KB", "MB" (the window's
 * labels since the start). Not Intl's unit formatting, which gives "MB/秒" and "吉字节" in
 * Chinese: the same "3.2 MB/s" in every language, with the digits (decimal separator,
 * grouping) of the locale.
 */
const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

const numberFormats = new Map<string, Intl.NumberFormat>();
/** One cached Intl.NumberFormat per locale and fixed number of fraction digits. */
export function numberFormat(locale: string, digits: number): Intl.NumberFormat {
  const id = `${locale}|${digits}`;
  let nf = numberFormats.get(id);
  if (!nf) {
    nf = new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: digits });
    numberFormats.set(id, nf);
  }
  return nf;
}

/** 0 → "0 B", 1536 → "1.5 KB", 3_355_443 → "3.2 MB". One decimal below 100 of a unit, none above. */
export function formatBytes(bytes: number, locale = 'en'): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  // Rounding may reach 1024 of a unit ("1024.0 KB"): show the next unit instead.
  if (Number(value.toFixed(digits)) >= 1024 && unit < UNITS.length - 1) return formatBytes(bytes + 1, locale);
  return `${numberFormat(locale, digits).format(value)} ${UNITS[unit]}`;
}

/** Bytes per second: "3.2 MB/s"; 0 → "0 B/s". */
export function formatSpeed(bytesPerSecond: number, locale = 'en'): string {
  return `${formatBytes(bytesPerSecond, locale)}/s`;
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

/** "0 files", "1 file", "2,000 files": the command line's counts (its messages are English). */
export function fileCount(n: number): string {
  return `${numberFormat('en', 0).format(n)} ${n === 1 ? 'file' : 'files'}`;
}
