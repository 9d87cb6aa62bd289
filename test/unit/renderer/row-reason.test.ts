import { describe, expect, it } from 'vitest';
import { rowReason } from '../../../src-renderer/screens/transfers/row-reason';

describe("a failed row's reason", () => {
  const p = '/home/ann/Pictures/2026 summer/IMG_0001.jpg';

  it('names the file as "this file" where the message begins with its path: the reason comes first', () => {
    expect(rowReason(`${p} does not exist (moved or deleted?)`, p, 'This file')).toBe(
      'This file does not exist (moved or deleted?)',
    );
    expect(rowReason(`${p} became shorter while it was uploaded: it was 12.0 MB`, p, '此文件')).toBe(
      '此文件 became shorter while it was uploaded: it was 12.0 MB',
    );
  });

  it('leaves a message about something else, or naming another path that shares the start, as it is', () => {
    expect(rowReason('The service answered 503: busy', p, 'This file')).toBe('The service answered 503: busy');
    expect(rowReason(`${p}.bak does not exist`, p, 'This file')).toBe(`${p}.bak does not exist`);
    expect(rowReason(' does not exist', '', 'This file')).toBe(' does not exist');
  });
});
