import { isServiceError } from '../protocol/errors';

/**
 * The error rows of the interface document's VCA table, each as a code Blocklift branches
 * on and a message a person can act on. The service tells the 401 rows apart only by their
 * message text, so this table is the one place that reads message text; it compares a
 * normalized form (letters only, lower case) so spacing and punctuation changes still match.
 */
export type VcaErrorCode =
  | 'bucket-not-found'
  | 'service-not-enabled'
  | 'type-not-supported'
  | 'bucket-missing'
  | 'source-missing'
  | 'source-invalid'
  | 'notify-url-invalid'
  | 'job-not-found';

interface Row {
  code: VcaErrorCode;
  status: readonly number[];
  message: string;
  explain: (ctx: VcaErrorContext) => string;
}

export interface VcaErrorContext {
  bucket?: string;
  source?: string;
  jobId?: string;
}

const q = (s: string | undefined, fallback: string) => (s ? `"${s}"` : fallback);

export const VCA_ERROR_ROWS: readonly Row[] = [
  {
    code: 'bucket-not-found',
    status: [404],
    message: 'Bucket Not Found',
    explain: (c) =>
      `The bucket ${q(c.bucket, 'you chose')} does not exist on this account. Check the bucket name (it is case-sensitive) or create the bucket first.`,
  },
  {
    code: 'service-not-enabled',
    status: [401],
    message: 'Smart Media Service Not Enabled',
    explain: () =>
      'Video analysis is not enabled for this account. Turn on the smart media service in the account console, then start the analysis again.',
  },
  {
    code: 'type-not-supported',
    status: [401],
    message: 'Type Invalid,Type Is Not Supported',
    explain: () =>
      'The service does not support one of the requested analysis types. Remove the unsupported type (one is enough to refuse the whole request) and try again.',
  },
  {
    code: 'bucket-missing',
    status: [401],
    message: 'Bucket Is Null',
    explain: () => 'No bucket was given. Choose the bucket the video belongs to and try again.',
  },
  {
    code: 'source-missing',
    status: [401],
    message: 'Source Is Null',
    explain: () => 'No video address was given. Enter the full URL of the video (http:// or https://) and try again.',
  },
  {
    code: 'source-invalid',
    status: [401],
    message: 'Source Invalid',
    explain: (c) =>
      `The service could not read the video address ${q(c.source, '')} (it must reach the service URL-safe Base64 encoded). Check that the address is a complete URL; if it is, this is a Blocklift bug worth reporting.`,
  },
  {
    code: 'notify-url-invalid',
    status: [401],
    message: 'NotifyUrl Invalid',
    explain: () =>
      'The service refused the notification address. Check the public base URL in Settings (a complete http:// or https:// address), or clear it to rely on polling.',
  },
  {
    code: 'job-not-found',
    status: [404, 401],
    message: 'JobId Not Found',
    explain: (c) =>
      `The service does not know the analysis job ${q(c.jobId, '')}. Check that the id was copied whole and that it belongs to this account's management host.`,
  },
];

const normalize = (s: string) => s.toLowerCase().replace(/[^a-z]/g, '');
const BY_MESSAGE = new Map(VCA_ERROR_ROWS.map((r) => [normalize(r.message), r]));

/** The row of the VCA table an error is, or undefined when it is not one of them. */
export function vcaErrorRow(e: unknown): Row | undefined {
  if (!isServiceError(e) || e.kind !== 'service') return undefined;
  const row = BY_MESSAGE.get(normalize(e.serviceMessage));
  return row && row.status.includes(e.status) ? row : undefined;
}

/** True when the service said it does not know the job (404, or the 401 variant of the document). */
export function isVcaJobNotFound(e: unknown): boolean {
  if (vcaErrorRow(e)?.code === 'job-not-found') return true;
  return isServiceError(e) && e.kind === 'service' && e.status === 404 && e.endpoint === 'vca-search';
}

/** A person's message for a failed VCA call: the table's explanation, or a general one. */
export function explainVcaError(e: unknown, ctx: VcaErrorContext = {}): { code: string; message: string } {
  const row = vcaErrorRow(e);
  if (row) return { code: row.code, message: row.explain(ctx) };
  return explainServiceFailure(e);
}

/**
 * A person's message for any failed service call that is not a row of a table: says whether
 * waiting helps. The code is the error's kind, or `http-<status>` for other service answers.
 */
export function explainServiceFailure(e: unknown): { code: string; message: string } {
  if (!isServiceError(e))
    return { code: 'internal', message: `Unexpected error: ${e instanceof Error ? e.message : String(e)}` };
  switch (e.kind) {
    case 'network':
      return {
        code: 'network',
        message: `Could not reach the management host (${e.serviceMessage}). Blocklift keeps trying; check the address and your connection.`,
      };
    case 'timeout':
      return { code: 'timeout', message: 'The management host did not answer in time. Blocklift keeps trying.' };
    case 'aborted':
      return { code: 'aborted', message: 'Canceled.' };
    case 'bad-reply':
      return { code: 'bad-reply', message: `The service sent a reply Blocklift cannot read (${e.serviceMessage}).` };
    case 'service':
      if (e.code === 'no-credentials')
        return {
          code: 'no-credentials',
          message: 'This needs the account access key and secret key. Add them to the account, then try again.',
        };
      if (e.status === 401 || e.status === 403)
        return {
          code: `http-${e.status}`,
          message: `The service refused the credentials (${e.serviceMessage}). Check the access key and secret key of the account.`,
        };
      if (e.status >= 500)
        return {
          code: `http-${e.status}`,
          message: `The service had a problem (${e.status}: ${e.serviceMessage}). Blocklift keeps trying.`,
        };
      return {
        code: `http-${e.status}`,
        message: `The service refused the request (${e.status}: ${e.serviceMessage}).`,
      };
  }
}
