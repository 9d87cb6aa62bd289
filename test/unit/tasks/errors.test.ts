import { describe, expect, it } from 'vitest';
import { ServiceError, errorFromReply } from '../../../src-main/protocol/errors';
import { classifyPollError } from '../../../src-main/tasks/poll-errors';
import { explainVcaError, VCA_ERROR_ROWS } from '../../../src-main/tasks/vca-errors';

const reply = (
  endpoint: 'vca-create' | 'vca-search' | 'fmgr-status',
  status: number,
  code: string | number,
  message: string,
) => errorFromReply(endpoint, status, Buffer.from(JSON.stringify({ code, message })));

describe('VCA error table', () => {
  it.each([
    [404, 'Bucket Not Found', 'bucket-not-found', /bucket "media" does not exist/],
    [401, 'Smart Media Service Not Enabled', 'service-not-enabled', /not enabled/],
    [401, 'Type Invalid,Type Is Not Supported', 'type-not-supported', /does not support/],
    [401, 'Bucket Is Null', 'bucket-missing', /No bucket/],
    [401, 'Source Is Null', 'source-missing', /No video address/],
    [401, 'Source Invalid', 'source-invalid', /could not read the video address/],
    [401, 'NotifyUrl Invalid', 'notify-url-invalid', /notification address/],
    [404, 'JobId Not Found', 'job-not-found', /does not know the analysis job "j1"/],
    [401, 'JobId Not Found', 'job-not-found', /does not know/],
  ] as const)('%i %s → %s', (status, message, code, text) => {
    const x = explainVcaError(reply('vca-create', status, String(status), message), { bucket: 'media', jobId: 'j1' });
    expect(x.code).toBe(code);
    expect(x.message).toMatch(text);
  });

  it('covers every row of the table once', () => {
    expect(new Set(VCA_ERROR_ROWS.map((r) => r.code)).size).toBe(8);
  });

  it('matches despite spacing and case changes', () => {
    expect(explainVcaError(reply('vca-create', 401, '401', 'type invalid, type is not supported')).code).toBe(
      'type-not-supported',
    );
  });

  it('does not take a row under another status', () => {
    expect(explainVcaError(reply('vca-create', 500, '500', 'Bucket Not Found')).code).toBe('http-500');
  });

  it('explains failures outside the table', () => {
    expect(explainVcaError(reply('vca-create', 401, '401', 'bad token: signature does not match')).code).toBe(
      'http-401',
    );
    expect(
      explainVcaError(new ServiceError({ kind: 'network', endpoint: 'vca-create', message: 'ECONNREFUSED' })).message,
    ).toMatch(/Could not reach/);
    expect(explainVcaError(new Error('boom')).code).toBe('internal');
  });
});

describe('classifyPollError', () => {
  it.each([
    [reply('fmgr-status', 404, 404, 'no such task'), 'not-found'],
    [reply('vca-search', 404, '404', 'JobId Not Found'), 'not-found'],
    [reply('vca-search', 401, '401', 'JobId Not Found'), 'not-found'],
    [reply('fmgr-status', 500, 500, 'oops'), 'retry'],
    [reply('fmgr-status', 503, 503, 'busy'), 'retry'],
    [reply('fmgr-status', 429, 429, 'slow down'), 'retry'],
    [reply('fmgr-status', 400, 400, 'bad id'), 'fatal'],
    [reply('vca-search', 401, '401', 'something else'), 'fatal'],
    [new ServiceError({ kind: 'network', endpoint: 'fmgr-status', message: 'ECONNRESET' }), 'retry'],
    [new ServiceError({ kind: 'timeout', endpoint: 'fmgr-status', message: 'slow' }), 'retry'],
    [new ServiceError({ kind: 'bad-reply', endpoint: 'fmgr-status', message: 'not JSON' }), 'retry'],
    [new ServiceError({ kind: 'aborted', endpoint: 'fmgr-status', message: 'canceled' }), 'aborted'],
    [new Error('SQLITE_BUSY'), 'retry'],
  ] as const)('%s → %s', (e, cls) => {
    expect(classifyPollError(e).cls).toBe(cls);
  });
});
