import {
  API_METHODS,
  type ApiArea,
  type ApiMethod,
  type AppApi,
  type AppError,
  type AppEventName,
  type AppEvents,
  type Result,
} from '../shared/contract';

/**
 * Calls one verb of an `AppApi` by its method name ("transfers.list"), the way every door
 * does (IPC handler, WebSocket and HTTP router). The one place a name becomes a call, so
 * the doors keep no list of their own.
 *
 * Contract: resolves to a Result and never rejects. A name outside `API_METHODS` (or a
 * value that is not a string) → 'unknown-method'; a verb that throws or rejects despite the
 * contract → 'internal' (the exception's message, never its stack, goes in the reply).
 */
export async function callApi(api: AppApi, method: unknown, input: unknown): Promise<Result<unknown>> {
  if (!isApiMethod(method))
    return failure('unknown-method', `There is no verb ${String(method)}.`, { method: String(method) });
  const dot = method.indexOf('.');
  const area = method.slice(0, dot) as ApiArea;
  const verb = method.slice(dot + 1);
  const fn = (api[area] as Record<string, ((i: unknown) => Promise<Result<unknown>>) | undefined>)[verb];
  if (typeof fn !== 'function') return failure('unknown-method', `There is no verb ${method}.`, { method });
  try {
    return await fn.call(api[area], input);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return failure('internal', `Something went wrong inside Blocklift: ${detail}`, { detail });
  }
}

const METHODS: ReadonlySet<string> = new Set(API_METHODS);

export function isApiMethod(value: unknown): value is ApiMethod {
  return typeof value === 'string' && METHODS.has(value);
}

export function failure(code: AppError['code'], message: string, params: AppError['params'] = {}): Result<never> {
  return { ok: false, error: { code, message, params } };
}

/** One pushed event, name and payload together. */
export type AppEventMessage = { [N in AppEventName]: { name: N; payload: AppEvents[N] } }[AppEventName];

/** What a door serves: the contract's verbs and the stream of batched events. */
export interface DoorBackend {
  api: AppApi;
  /** Receives every event batch until the returned function is called. */
  subscribe(listener: (event: AppEventMessage) => void): () => void;
}
