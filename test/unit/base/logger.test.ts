import { describe, expect, it } from 'vitest';
import { formatLogLine, silentLogger, stderrLogger } from '../../../src-main/base/logger';

describe('base/logger', () => {
  it('formats message and fields, quoting values with spaces, quotes or nothing in them', () => {
    expect(formatLogLine('emu: ', 'info', 'started', { port: 8088, dir: '/tmp/a b', ok: true, gone: undefined })).toBe(
      'emu: started port=8088 dir="/tmp/a b" ok=true',
    );
    expect(formatLogLine('', 'error', 'failed', { why: '' })).toBe('error: failed why=""');
  });

  it('stderrLogger writes one line per entry at or above its level; silentLogger writes nothing', () => {
    const lines: string[] = [];
    const log = stderrLogger('x: ', { minLevel: 'warn', write: (l) => lines.push(l) });
    log.debug('a');
    log.info('b');
    log.warn('c', { n: 1 });
    log.error('d');
    silentLogger.error('e');
    expect(lines).toEqual(['x: warn: c n=1\n', 'x: error: d\n']);
  });
});
