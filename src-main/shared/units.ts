/**
 * Bytes and speeds as people read them, the one formatter of the window, the tray and the
 * command line (so one throughput is one number everywhere). Binary multiples, as the
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
