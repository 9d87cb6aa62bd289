/** Plain data for the renderer's tests: transfer rows, Fmgr tasks and VCA jobs as the service sends them. */
import type { TransferView } from '../../../src-main/shared/contract';
import type { TransferState } from '../../../src-main/shared/models';
import type { FmgrTaskView, VcaJobView, VcaLabelDecision } from '../../../src-main/shared/task-views';

export function row(id: number, state: TransferState = 'queued', extra: Partial<TransferView> = {}): TransferView {
  return {
    id,
    accountId: 1,
    bucket: 'b',
    key: `file-${id}.bin`,
    localPath: `/data/file-${id}.bin`,
    size: 1000,
    state,
    source: 'manual',
    bytesDone: 0,
    speed: 0,
    etaSeconds: null,
    etag: null,
    lastError: null,
    warning: null,
    createdAt: 1_000 + id,
    updatedAt: 1_000 + id,
    rootId: null,
    pausedBy: null,
    attempts: 0,
    verified: false,
    remoteHash: null,
    persistentId: null,
    copiedFrom: null,
    ...extra,
  };
}

export function job(id: number, labels: Array<[string, string, number, VcaLabelDecision?]>): VcaJobView {
  const types = [...new Set(labels.map((l) => l[0]))];
  let labelId = id * 100;
  return {
    id,
    accountId: 1,
    jobId: `job-${id}`,
    bucket: null,
    sourceUrl: `http://127.0.0.1/v${id}.mp4`,
    origin: 'created',
    transferId: null,
    notifyUrl: null,
    tracking: 'done',
    code: 0,
    state: 'done',
    description: null,
    notifyResult: null,
    notifyState: null,
    minConfidence: 0.5,
    results: types.map((type) => ({
      type,
      labels: labels
        .filter((l) => l[0] === type)
        .map(([, attribute, confidence, decision]) => ({
          id: ++labelId,
          attribute,
          confidence,
          decision: decision ?? 'pending',
          correctedText: null,
          effective: confidence >= 0.5 ? ('above-threshold' as const) : ('below-threshold' as const),
        })),
    })),
    error: null,
    polls: 1,
    nextPollAt: null,
    createdAt: 1,
    updatedAt: 1,
    finishedAt: 1,
  };
}

/** An Fmgr task just submitted and being followed (no answer yet); `extra` sets what a test is about. */
export function fmgrTask(extra: Partial<FmgrTaskView> = {}): FmgrTaskView {
  return {
    id: 1,
    accountId: 1,
    persistentId: 'p1',
    origin: 'submitted',
    op: 'copy',
    fops: null,
    notifyUrl: null,
    forTransfer: null,
    tracking: 'active',
    code: null,
    codeSource: null,
    state: null,
    description: null,
    separate: null,
    items: [],
    error: null,
    polls: 0,
    nextPollAt: null,
    createdAt: 1,
    updatedAt: 1,
    finishedAt: null,
    ...extra,
  };
}
