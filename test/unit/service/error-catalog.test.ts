import { ZodError } from 'zod';
import { describe, expect, it } from 'vitest';
import { AppServiceError, knownError } from '../../../src-main/service/api/errors';
import { area } from '../../../src-main/service/api/envelope';
import { AddFilesError } from '../../../src-main/service/add-files';
import { SecretError } from '../../../src-main/service/secrets';
import { ServiceError } from '../../../src-main/protocol/errors';
import { ERROR_CATALOG, ERROR_CODES, formatMessage, isErrorCode } from '../../../src-main/shared/errors';
import { WatchOptionsError } from '../../../src-main/sync/options';
import { RootRefusedError } from '../../../src-main/sync/root-guard';
import { ScheduleError } from '../../../src-main/sync/schedule';
import { TaskError } from '../../../src-main/tasks/task-error';
import type { AppApi } from '../../../src-main/shared/contract';

describe('error catalog', () => {
  it('every code has a kind and an English template; placeholders are plain names', () => {
    for (const code of ERROR_CODES) {
      const e = ERROR_CATALOG[code];
      expect(['input', 'not-found', 'conflict', 'service', 'local', 'internal']).toContain(e.kind);
      expect(e.en.length).toBeGreaterThan(5);
      for (const m of e.en.matchAll(/\{([^}]*)\}/g)) expect(m[1]).toMatch(/^\w+$/);
      expect(isErrorCode(code)).toBe(true);
    }
    expect(isErrorCode('no-such-code')).toBe(false);
    expect(formatMessage('{a} and {b}', { a: 1 })).toBe('1 and {b}');
  });

  it('typed errors of the lower layers map by type and code, never by their text', () => {
    const cases: Array<[unknown, string]> = [
      [new ZodError([]), 'invalid-input'],
      [new ServiceError({ kind: 'network', endpoint: 'mkblk', message: 'ECONNREFUSED' }), 'service-unreachable'],
      [
        new ServiceError({ kind: 'service', endpoint: 'mkblk', status: 401, message: 'bad token' }),
        'service-auth-failed',
      ],
      [new ServiceError({ kind: 'service', endpoint: 'mkfile', status: 579, message: 'callback' }), 'service-error'],
      [
        new ServiceError({ kind: 'bad-reply', endpoint: 'mkfile', status: 200, message: 'no key' }),
        'service-bad-reply',
      ],
      [new WatchOptionsError('the same words'), 'invalid-watch-options'],
      [new ScheduleError('the same words'), 'invalid-schedule'],
      [new RootRefusedError('root-inside-root', 'the same words'), 'root-refused'],
      [new RootRefusedError('root-missing', 'the same words'), 'path-not-found'],
      [new AddFilesError('key-collision', 'the same words'), 'key-collision'],
      [new AddFilesError('not-a-file', 'the same words'), 'path-not-file-or-folder'],
      [new TaskError('bad-operation', 'the same words'), 'fmgr-invalid-op'],
      [new TaskError('no-account', 'the same words'), 'no-account'],
      [new SecretError('secret-file-unsafe', 'the same words'), 'secret-store-unavailable'],
      [new AppServiceError('account-in-use', { name: 'x', count: 2 }), 'account-in-use'],
    ];
    for (const [e, code] of cases) expect(knownError(e)?.code, String(e)).toBe(code);
    expect(knownError(new Error('the same words'))).toBeUndefined();
    expect(knownError(new AppServiceError('account-in-use', { name: 'Team', count: 2 }))?.message).toBe(
      'The account Team is used by 2 transfer(s) or folder(s).',
    );
  });

  it('the envelope: a refused input never runs the verb; an unknown error is internal, logged, its text not sent', async () => {
    const ran: unknown[] = [];
    const logged: string[] = [];
    const settings = area(
      'settings',
      {
        get: () => {
          throw new Error('secret path /home/u/.ssh/id_rsa in a bug');
        },
        set: (p: unknown) => {
          ran.push(p);
          throw new ScheduleError('window 1 is empty');
        },
      } as never,
      (method) => logged.push(method),
    ) as AppApi['settings'];
    const bad = await settings.set({ theme: 'neon' } as never);
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect(ran).toEqual([]);
    const refused = await settings.set({ theme: 'dark' });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'invalid-schedule', params: { detail: 'window 1 is empty' } },
    });
    const bug = await settings.get();
    expect(bug).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(JSON.stringify(bug)).not.toContain('id_rsa');
    expect(logged).toEqual(['settings.get']);
  });
});
