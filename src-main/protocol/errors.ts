/** Which call of the service an error came from. */
export type Endpoint =
  | 'mkblk'
  | 'bput'
  | 'mkfile'
  | 'form-upload'
  | 'fmgr-submit'
  | 'fmgr-status'
  | 'vca-create'
  | 'vca-search'
  | 'stat'
  | 'download'
  | 'token';

/**
 * Why a call failed, as something code can branch on:
 * - `service`: the service answered an error status with its JSON body;
 * - `bad-reply`: the reply was not what the protocol promises (not JSON, wrong shape,
 *   checksum mismatch);
 * - `network`: no reply (refused, reset, DNS, TLS);
 * - `timeout`: no reply within the call's time limit;
 * - `aborted`: the caller's AbortSignal fired.
 */
export type ServiceErrorKind = 'service' | 'bad-reply' | 'network' | 'timeout' | 'aborted';

export interface ServiceErrorInit {
  kind: ServiceErrorKind;
  endpoint: Endpoint;
  message: string;
  /** HTTP status; 0 when no reply arrived. */
  status?: number;
  /** The service's own code from the error body (a string for upload, a number elsewhere). */
  code?: string | number;
  requestId?: string;
  cause?: unknown;
}

/**
 * The one error type of the protocol layer. Carries the HTTP status, the service's code and
 * message, the endpoint and the request id (X-Reqid) when there is one.
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly kind: ServiceErrorKind;
  readonly endpoint: Endpoint;
  readonly status: number;
  readonly code: string | number | undefined;
  readonly requestId: string | undefined;
  /** The service's message alone, without the context this.message adds. */
  readonly serviceMessage: string;

  constructor(init: ServiceErrorInit) {
    const status = init.status ?? 0;
    const where = `${init.endpoint}${status ? ` ${status}` : ''}`;
    const rid = init.requestId ? ` (request id ${init.requestId})` : '';
    super(`${where}: ${init.message}${rid}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.endpoint = init.endpoint;
    this.status = status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.serviceMessage = init.message;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      endpoint: this.endpoint,
      status: this.status,
      code: this.code,
      message: this.serviceMessage,
      requestId: this.requestId,
    };
  }
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}

/**
 * Builds the error for a non-2xx reply from its raw body: uses the service's JSON
 * `{code, message}` (or `{error}`) when the body has it, else says what came back.
 */
export function errorFromReply(endpoint: Endpoint, status: number, body: Buffer, requestId?: string): ServiceError {
  let code: string | number | undefined;
  let message: string | undefined;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (parsed && typeof parsed === 'object') {
      const o = parsed as Record<string, unknown>;
      if (typeof o.code === 'string' || typeof o.code === 'number') code = o.code;
      if (typeof o.message === 'string') message = o.message;
      else if (typeof o.error === 'string') message = o.error;
    }
  } catch {
    // not JSON: described below
  }
  if (message === undefined) {
    const snippet = body.toString('utf8', 0, Math.min(body.length, 200)).replace(/\s+/g, ' ').trim();
    message = snippet ? `unexpected reply (not the service's JSON error): ${snippet}` : 'empty error reply';
  }
  return new ServiceError({ kind: 'service', endpoint, status, code, message, requestId });
}
