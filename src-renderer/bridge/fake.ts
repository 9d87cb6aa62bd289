/**
 * A bridge built from a partial `AppApi` and a `push` to send events: the double the store's
 * tests (and view tests) use instead of a door. A verb it was not given answers with the
 * catalog's 'unknown-method' error, as a door would for a verb it does not have.
 */
import type { ApiMethod, AppApi, AppEventName, AppEvents, Result } from '../../src-main/shared/contract';
import { EventDispatch } from '../../src-main/common/door-rpc';
import type { Bridge } from './bridge';

export type PartialApi = { [A in keyof AppApi]?: Partial<AppApi[A]> };

export interface FakeBridge extends Bridge {
  push<N extends AppEventName>(name: N, payload: AppEvents[N]): void;
  /** Every call made, in order. */
  calls: Array<{ method: ApiMethod; input: unknown }>;
}

/** `door` replaces what the door itself provides (local paths of dropped files, staged uploads). */
export function fakeBridge(
  api: PartialApi,
  door: Partial<Pick<Bridge, 'pathForFile' | 'stageFiles'>> = {},
): FakeBridge {
  const listeners = new EventDispatch();
  const calls: FakeBridge['calls'] = [];
  const call = async (method: ApiMethod, input: unknown): Promise<Result<unknown>> => {
    calls.push({ method, input });
    const [area, verb] = method.split('.') as [keyof AppApi, string];
    const fn = (api[area] as Record<string, ((input: unknown) => Promise<Result<unknown>>) | undefined> | undefined)?.[
      verb
    ];
    if (!fn) return { ok: false, error: { code: 'unknown-method', message: `no ${method}`, params: { method } } };
    return fn(input);
  };
  return {
    calls,
    call: call as Bridge['call'],
    on: (name, listener) => listeners.on(name, listener as (payload: unknown) => void),
    push: (name, payload) => listeners.emit(name, payload),
    pathForFile: door.pathForFile ?? (() => ''),
    ...(door.stageFiles ? { stageFiles: door.stageFiles } : {}),
    connection: () => 'open',
    onConnection: () => () => undefined,
  };
}
