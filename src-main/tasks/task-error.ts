/**
 * An error of the tasks layer that a person sees: `code` is what code branches on (the
 * codes of vca-errors.ts and poll-errors.ts, or 'no-account', 'bad-input', 'bad-operation'),
 * `message` says what to do. `cause` keeps the ServiceError when there is one.
 */
export class TaskError extends Error {
  override readonly name = 'TaskError';
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Checks a persistentId or jobId typed by a person or read from a reply. */
export function checkRemoteId(id: string, what: 'persistentId' | 'jobId'): string {
  const trimmed = id.trim();
  if (trimmed === '') throw new TaskError('bad-input', `the ${what} is empty; paste the id the service returned`);
  if (trimmed.length > 512)
    throw new TaskError(
      'bad-input',
      `the ${what} is ${trimmed.length} characters long; ids of the service are far shorter, check what was pasted`,
    );
  if (/[\u0000-\u001f\u007f\s]/.test(trimmed))
    throw new TaskError('bad-input', `the ${what} contains spaces or control characters; paste only the id`);
  return trimmed;
}
