import { describe, expect, it } from 'vitest';
import { firstDayOfWeek, formatBytes, formatEta, formatSpeed } from '../../../src-renderer/format/format';

describe('formatting', () => {
  it('formats bytes with binary units, the same unit text in English and Chinese', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1,023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(3.2 * 1024 * 1024)).toBe('3.2 MB');
    expect(formatBytes(150 * 1024 * 1024)).toBe('150 MB');
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.0 MB');
    expect(formatSpeed(3.2 * 1024 * 1024, 'zh-CN')).toBe('3.2 MB/s');
    expect(formatSpeed(3.2 * 1024 * 1024, 'en')).toBe('3.2 MB/s');
    expect(formatBytes(-1)).toBe('—');
  });

  it('formats an ETA as its two largest units, and hides a zero or unknown one', () => {
    expect(formatEta(42)).toBe('42 s');
    expect(formatEta(3725)).toBe('1 h 2 min');
    expect(formatEta(3600)).toBe('1 h');
    expect(formatEta(3725, 'zh-CN')).toBe('1小时2分钟');
    expect(formatEta(0)).toBeNull();
    expect(formatEta(null)).toBeNull();
  });

  it('starts the week on Sunday in en-US and on Monday in zh-CN', () => {
    expect(firstDayOfWeek('en-US')).toBe(0);
    expect(firstDayOfWeek('zh-CN')).toBe(1);
  });
});
