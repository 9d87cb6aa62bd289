import type { TransferPatch, TransferRecord } from './ports';
import { StopRequest, TransferFailure, diskFullFailure, isDiskFull } from './errors';
import { FileUpload } from './file-upload';
import type { TransferState } from '../shared/models';
import type { UploadDeps, UploadHooks, UploadOutcome } from './upload-deps';

/** How one try of a transfer ended: its outcome, its failure, or where a stop sent it. */
export interface RunEnd {
  outcome?: UploadOutcome;
  failure?: TransferFailure;
  stopTo?: StopRequest['to'];
}

/** What a try needs of the engine: its state writes and the hooks of progress and retries. */
export interface AttemptPorts {
  setState(id: number, patch: TransferPatch): void;
  progress: UploadHooks['progress'];
  retried: UploadHooks['retried'];
  log: UploadHooks['log'];
}

/**
 * One try of a transfer's upload: marks it uploading, runs a FileUpload and sorts how it
 * ended. Never rejects: a full disk (wherever it was met) comes back as the failure
 * `disk-full`, which the engine holds instead of recording; anything unknown as `internal`.
 */
export async function runAttempt(
  rec: TransferRecord,
  deps: () => UploadDeps,
  ports: AttemptPorts,
  ctrl: AbortController,
  hard: AbortController,
  /** The admission's stat found the file small (engine.ts `isSmall`); false spares it the small-file reader. */
  small: boolean,
): Promise<RunEnd> {
  try {
    ports.setState(rec.id, { state: 'uploading', lastError: null, warning: null });
    let phase: TransferState = 'uploading';
    const upload = new FileUpload(
      rec,
      deps(),
      {
        phase: (state) => {
          if (state === phase) return;
          phase = state;
          ports.setState(rec.id, { state });
        },
        progress: ports.progress,
        retried: ports.retried,
        log: ports.log,
      },
      { maybeSmall: small },
    );
    return { outcome: await upload.run({ soft: ctrl.signal, hard: hard.signal }) };
  } catch (e) {
    if (ctrl.signal.aborted && ctrl.signal.reason instanceof StopRequest) return { stopTo: ctrl.signal.reason.to };
    if (isDiskFull(e)) return { failure: e instanceof TransferFailure ? e : diskFullFailure(e) };
    if (e instanceof TransferFailure) return { failure: e };
    return {
      failure: new TransferFailure('internal', `unexpected error: ${(e as Error)?.message ?? String(e)}`, {
        cause: e,
      }),
    };
  }
}
