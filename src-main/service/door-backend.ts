import type { AppApi, AppError, AppEventMessage, Result } from '../shared/contract';
import { catalogMessage, type ErrorCode } from '../shared/errors';

/**
 * What a door (the Electron IPC handlers, the headless HTTP/WebSocket router) serves: the
 * contract's verbs, the call by method name, and the stream of event batches. AppService
 * is one; the doors depend on this shape only.
 */
export interface DoorBackend extends AppApi {
  /** Calls a verb by its method name ("transfers.list"); answers 'unknown-method' for any other name. */
  invoke(method: string, input: unknown): Promise<Result<unknown>>;
  /** Receives every event batch until the returned function is called. */
  on(listener: (event: AppEventMessage) => void): () => void;
}

/**
 * A call as it arrives at a door from outside (a WebSocket frame, an IPC message): the
 * method may be anything. Resolves to a Result, never rejects: a method that is not a
 * string is 'unknown-method', a rejection despite the contract is 'internal' (its message
 * is not sent: it could name internals).
 */
export async function callFromDoor(backend: DoorBackend, method: unknown, input: unknown): Promise<Result<unknown>> {
  if (typeof method !== 'string')
    return failure('unknown-method', 'There is no such verb.', { method: String(method).slice(0, 100) });
  try {
    return await backend.invoke(method, input);
  } catch {
    return failure('internal', 'Something went wrong inside Blocklift.', { detail: `${method.slice(0, 100)} failed` });
  }
}

export function failure(code: AppError['code'], message: string, params: AppError['params'] = {}): Result<never> {
  return { ok: false, error: { code, message, params } };
}

/** A door's own refusal (before any verb runs) as the envelope, its message from the catalog. */
export function refusal(code: ErrorCode, params: AppError['params'] = {}): Result<never> {
  return failure(code, catalogMessage(code, params), params);
}
