/**
 * The renderer's one way to the app service. Every screen goes through a `Bridge`, never
 * through IPC or a socket directly; the method names and their types come from `AppApi`
 * (src-main/shared/contract.ts), so a verb cannot be misspelled or called with the wrong input.
 *
 * Contract: `call` resolves to the verb's `Result` (a refused call is `{ok:false}`, never a
 * rejection). It rejects only when the transport itself failed (the window lost its door):
 * then with a `BridgeError` whose code is 'bridge-closed'.
 */
import type {
  AddTransfersResult,
  ApiInput,
  ApiMethod,
  ApiOutput,
  AppError,
  AppEventName,
  AppEvents,
  Result,
  TransferTarget,
} from '../../src-main/shared/contract';

export interface Bridge {
  call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<Result<ApiOutput<M>>>;
  /** Listens to one pushed event; returns the unsubscribe function. */
  on<N extends AppEventName>(name: N, listener: (payload: AppEvents[N]) => void): () => void;
  /** The local path of a dropped File ('' when the door cannot know it, e.g. in a browser). */
  pathForFile(file: unknown): string;
  /**
   * Only where dropped files have no local path (a browser page on the headless door): sends
   * the files' bytes to the door, which queues them like `transfers.add` (keys: the relative paths).
   * `onProgress(sent)` is told how many files the door has taken so far, after each one.
   */
  stageFiles?: (
    files: StagedFile[],
    target: TransferTarget,
    onProgress?: (sent: number) => void,
  ) => Promise<Result<AddTransfersResult>>;
  /** Whether the bridge is connected now, and a way to hear when that changes. */
  connection(): BridgeConnection;
  onConnection(listener: (state: BridgeConnection) => void): () => void;
}

/** A dropped file and its path relative to what was dropped ("photos/a.jpg" for a dropped folder "photos"). */
export interface StagedFile {
  file: Blob;
  relPath: string;
}

/**
 * `stalled`: connected, but the app has sent nothing, not even the answer to a liveness
 * check, for a while (it is stuck or stopped); calls made meanwhile wait for it.
 * `refused`: the door is there but refuses this page's access (it was started again, with a
 * new token): only opening the address it printed helps; the bridge goes on trying, so the
 * page connects once that address was opened in this browser.
 */
export type BridgeConnection = 'connecting' | 'open' | 'stalled' | 'closed' | 'refused';

/** Codes the renderer itself produces (the transport), beside the service's catalog. */
export type BridgeErrorCode = 'bridge-closed';
export const BRIDGE_ERROR_CODES: readonly BridgeErrorCode[] = ['bridge-closed'];

export class BridgeError extends Error {
  readonly code: BridgeErrorCode;
  constructor(code: BridgeErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = 'BridgeError';
  }
}

/** An error a screen shows: one of the service's codes, or the transport's own. */
export interface UiError {
  code: AppError['code'] | BridgeErrorCode;
  message: string;
  params: AppError['params'];
}

export type UiResult<T> = { ok: true; value: T } | { ok: false; error: UiError };

/** A call whose transport failure becomes a failed result, so a store action has one path. */
export async function callSafely<M extends ApiMethod>(
  bridge: Bridge,
  method: M,
  input: ApiInput<M>,
): Promise<UiResult<ApiOutput<M>>> {
  try {
    return await bridge.call(method, input);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: { code: 'bridge-closed', message, params: {} } };
  }
}
