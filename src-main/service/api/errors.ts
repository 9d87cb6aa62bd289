import { isDiskFull } from '../../base/disk-full';
import { ZodError } from 'zod';
import { PlanError } from '../../engine/plan';
import { ServiceError } from '../../protocol/errors';
import { FopsSyntaxError } from '../../protocol/fops';
import type { AppError } from '../../shared/contract';
import { catalogMessage, type ErrorCode } from '../../shared/errors';
import { appErrorOfIssues } from '../../shared/schema-rules';
import { ReviewInputError } from '../../store/tasks/vca-repo';
import { WatchOptionsError } from '../../sync/options';
import { RootRefusedError } from '../../sync/root-guard';
import { RootUnavailableError } from '../../sync/scanner';
import { ScheduleError } from '../../sync/schedule';
import { TaskError } from '../../tasks/task-error';
import { AccountError } from '../accounts';
import { AddFilesError } from '../add-files';
import { SecretError } from '../secrets';

type Params = AppError['params'];

/**
 * A refusal of the app service itself, with its catalog code and the params of the
 * catalog's message. Verbs throw it; the envelope (envelope.ts) returns it as is.
 */
export class AppServiceError extends Error {
  override readonly name = 'AppServiceError';
  constructor(
    readonly code: ErrorCode,
    readonly params: Params = {},
    message?: string,
  ) {
    super(message ?? catalogMessage(code, params));
  }
}

export function appError(code: ErrorCode, params: Params = {}, message?: string): AppError {
  return { code, message: message ?? catalogMessage(code, params), params };
}

export function notFound(what: string, id: number | string): AppServiceError {
  return new AppServiceError('not-found', { what, id });
}

function fromServiceError(e: ServiceError): AppError {
  const reason = e.serviceMessage;
  if (e.kind === 'network' || e.kind === 'timeout')
    return appError('service-unreachable', { url: e.endpoint, reason, requestId: e.requestId ?? null });
  if (e.kind === 'bad-reply') return appError('service-bad-reply', { detail: reason, requestId: e.requestId ?? null });
  if (e.status === 401 || e.status === 403)
    return appError('service-auth-failed', { status: e.status, message: reason, requestId: e.requestId ?? null });
  return appError('service-error', { status: e.status, message: reason, requestId: e.requestId ?? null });
}

const ADD_FILES_CODES: Record<AddFilesError['code'], ErrorCode> = {
  'no-paths': 'invalid-input',
  'path-not-found': 'path-not-found',
  'not-a-file': 'path-not-file-or-folder',
  'key-needs-one-file': 'invalid-input',
  'key-collision': 'key-collision',
  'key-invalid': 'key-invalid',
  'broken-link': 'broken-link',
};

function fromTaskError(e: TaskError): AppError {
  if (e.cause instanceof ServiceError && e.code !== 'vca-error') {
    const mapped = fromServiceError(e.cause);
    return { ...mapped, message: e.message };
  }
  switch (e.code) {
    case 'no-account':
      return appError('no-account', {}, e.message);
    case 'bad-operation':
      return appError('fmgr-invalid-op', { detail: e.message });
    case 'bad-input':
      return appError('invalid-input', { detail: e.message });
    case 'bucket-missing':
      return appError('bucket-missing', {}, e.message);
    default:
      return appError('vca-error', { message: e.message, reason: e.code });
  }
}

/**
 * Turns anything a verb threw into the envelope's error, by the thrower's type and code,
 * never by its message text. Returns undefined for an error it does not know (the caller
 * logs it and answers 'internal'). Messages of lower layers are kept as the English text;
 * none of them carries a secret (they are written so, and tested).
 */
export function knownError(e: unknown): AppError | undefined {
  if (e instanceof AppServiceError) return { code: e.code, message: e.message, params: e.params };
  if (e instanceof ZodError) return appErrorOfIssues(e.issues);
  if (e instanceof ServiceError) return fromServiceError(e);
  if (e instanceof WatchOptionsError) return appError('invalid-watch-options', { detail: e.message });
  if (e instanceof ScheduleError) return appError('invalid-schedule', { detail: e.message });
  if (e instanceof RootRefusedError)
    return appError(
      e.code === 'root-missing' ? 'path-not-found' : 'root-refused',
      { path: e.path, reason: e.message, refusal: e.code },
      e.message,
    );
  // A watched folder that cannot be read (a plan or a preview of a folder that is gone): its catalog code as is.
  if (e instanceof RootUnavailableError) return appError(e.code, { ...e.params }, e.message);
  if (e instanceof AddFilesError) {
    if (e.code === 'path-not-found' && e.paths.length > 1)
      return appError('paths-not-found', { count: e.paths.length, paths: e.paths.join(', ') }, e.message);
    return appError(
      ADD_FILES_CODES[e.code],
      { detail: e.message, key: '', reason: e.message, path: e.paths.join(', ') },
      e.message,
    );
  }
  if (e instanceof TaskError) return fromTaskError(e);
  if (e instanceof FopsSyntaxError) return appError('fmgr-invalid-op', { detail: e.message });
  if (e instanceof ReviewInputError)
    return e.code === 'no-such-label' || e.code === 'no-such-job'
      ? appError('not-found', { what: e.code === 'no-such-job' ? 'VCA job' : 'Label', id: '' }, e.message)
      : appError('invalid-input', { detail: e.message });
  if (e instanceof PlanError) return appError('invalid-setting', { name: 'blockSize', detail: e.message });
  if (e instanceof SecretError) return appError('secret-store-unavailable', { reason: e.message });
  if (e instanceof AccountError) {
    if (e.code === 'account-unknown') return appError('no-account', {}, e.message);
    if (e.code === 'account-no-credentials') return appError('account-invalid', { detail: e.message });
    return appError('secret-store-unavailable', { reason: e.message });
  }
  if (e instanceof Error && isDiskFull(e)) return appError('disk-full', { path: 'the queue database' });
  if (e instanceof Error && e.name === 'SqliteError') return appError('database-error', { detail: e.message });
  return undefined;
}
