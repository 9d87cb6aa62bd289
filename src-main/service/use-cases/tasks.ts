import type {
  ExportedFile,
  FmgrStatusSnapshot,
  FmgrSubmitInput,
  TaskListQuery,
  VcaDecideInput,
  VcaLabelHit,
  VcaLabelQuery,
} from '../../shared/contract';
import type { FmgrOpName } from '../../shared/fmgr-ops';
import type { FmgrTaskView, VcaJobView } from '../../shared/task-views';
import type { AccountRepo } from '../../store/account-repo';
import type { TransferQueryRepo } from '../../store/transfer-query';
import type { FmgrTracker } from '../../tasks/fmgr-tracker';
import { fmgrStateName } from '../../tasks/fmgr-view';
import { exportCsv, exportJson } from '../../tasks/vca-export';
import type { VcaTracker } from '../../tasks/vca-tracker';
import { AppServiceError, notFound } from '../api/errors';

/** A remote id the service does not answer for: 'not-found', its message what the service said. */
function notFoundRemote(what: string, remoteId: string, reason: string): AppServiceError {
  return new AppServiceError('not-found', { what, id: remoteId.trim().slice(0, 512), reason }, reason);
}

/** A page of a tracker's list, filtered by tracking states (newest first). */
function page<V extends { tracking: string }>(
  list: (opts: { tracking?: never; limit?: number }) => V[],
  q: TaskListQuery,
): V[] {
  const offset = q.offset ?? 0;
  const limit = q.limit ?? 200;
  const all = list({}).filter(
    (v) => !q.tracking || q.tracking.length === 0 || q.tracking.includes(v.tracking as never),
  );
  return all.slice(offset, offset + limit);
}

/** The Fmgr tasks use case (verbs `fmgr.*`) over the tracker; account ids are resolved by the caller. */
export class FmgrUseCase {
  constructor(private readonly fmgr: FmgrTracker) {}

  submit(accountId: number, input: FmgrSubmitInput): Promise<FmgrTaskView> {
    const op = input.ops[0]!.op as FmgrOpName;
    if (input.ops.some((o) => o.op !== op))
      throw new AppServiceError('fmgr-invalid-op', { detail: 'every operation of one submission has the same op' });
    return this.fmgr.submit(accountId, op, input.ops, {
      ...(input.force !== undefined ? { force: input.force ? 1 : 0 } : {}),
      ...(input.separate !== undefined ? { separate: input.separate ? 1 : 0 } : {}),
    });
  }

  /** Follows a persistentId and polls it at once; one never seen here that the service does not know is not kept. */
  async track(accountId: number, persistentId: string): Promise<FmgrTaskView> {
    const fmgr = this.fmgr;
    const before = fmgr.find(accountId, persistentId.trim());
    const v = fmgr.track(accountId, persistentId);
    const polled = (await fmgr.pollNow(v.id)) ?? v;
    // Never seen here and the service gave no state: a typo, or a task of another service.
    if (!before && polled.state === null && polled.error) {
      fmgr.forget(polled.id);
      throw notFoundRemote('Fmgr task', persistentId, polled.error.message);
    }
    return polled;
  }

  /** A tracked task by its persistentId: `accountId`'s row first, else any account's. */
  lookup(accountId: number, persistentId: string): FmgrTaskView | null {
    return this.fmgr.findAnyAccount(accountId, persistentId.trim()) ?? null;
  }

  list(q: TaskListQuery): FmgrTaskView[] {
    return page((o) => this.fmgr.list(o), q);
  }

  get(id: number): FmgrTaskView & { history: FmgrStatusSnapshot[] } {
    const v = this.fmgr.get(id);
    if (!v) throw notFound('Fmgr task', id);
    const history = this.fmgr.snapshots(id).map((s) => ({
      at: s.firstSeenAt,
      code: s.code,
      state: fmgrStateName(s.code, s.source),
      source: s.source,
    }));
    return { ...v, history };
  }
}

export interface VcaDeps {
  vca: VcaTracker;
  /** The transfer a job of an uploaded object names. */
  transfers: Pick<TransferQueryRepo, 'get'>;
  /** The download domain of its account. */
  accounts: Pick<AccountRepo, 'get'>;
  /** The embedded emulator's Local account and its one bucket, when it runs. */
  local: { accountId: number; bucket: string } | undefined;
  /** The label browser's query (store/vca-label-query.ts). */
  labels: (q: VcaLabelQuery) => { hits: VcaLabelHit[]; total: number };
}

/** The VCA jobs use case (verbs `vca.*`): create, track, review decisions, labels, export. */
export class VcaUseCase {
  constructor(private readonly d: VcaDeps) {}

  /** A job for a video by URL; the Local account needs no bucket (the embedded emulator has one). */
  createFromUrl(
    accountId: number,
    source: { url: string; bucket?: string },
    minConfidence?: number,
  ): Promise<VcaJobView> {
    const local = this.d.local;
    const bucket = source.bucket ?? (local && accountId === local.accountId ? local.bucket : '');
    return this.d.vca.create({ accountId, bucket, source: source.url, minConfidence });
  }

  /** A job for the object a transfer uploaded, by its access URL (the account's download domain). */
  createForTransfer(transferId: number, minConfidence?: number): Promise<VcaJobView> {
    const t = this.d.transfers.get(transferId)?.record;
    if (!t) throw notFound('Transfer', transferId);
    const domain = this.d.accounts.get(t.accountId)?.downloadDomain;
    if (!domain)
      throw new AppServiceError('account-invalid', {
        detail: 'the account has no download domain, so the service cannot fetch the video',
      });
    return this.d.vca.createForObject({
      accountId: t.accountId,
      bucket: t.bucket,
      key: t.key,
      downloadDomain: domain,
      transferId: t.id,
      minConfidence,
    });
  }

  /** Follows a jobId and polls it at once; one never seen here that the service does not know is not kept. */
  async track(accountId: number, jobId: string): Promise<VcaJobView> {
    const vca = this.d.vca;
    const before = vca.find(accountId, jobId.trim());
    const v = vca.track(accountId, jobId);
    const polled = (await vca.pollNow(v.id)) ?? v;
    if (!before && polled.error?.code === 'not-found') {
      vca.forget(polled.id);
      throw notFoundRemote('VCA job', jobId, polled.error.message);
    }
    return polled;
  }

  /** A tracked job by its jobId: `accountId`'s row first, else any account's. */
  lookup(accountId: number, jobId: string): VcaJobView | null {
    return this.d.vca.findAnyAccount(accountId, jobId.trim()) ?? null;
  }

  list(q: TaskListQuery): VcaJobView[] {
    return page((o) => this.d.vca.list(o), q);
  }

  get(id: number): VcaJobView {
    const v = this.d.vca.get(id);
    if (!v) throw notFound('VCA job', id);
    return v;
  }

  decide({ jobId, labelId, decision, correctedText }: VcaDecideInput): VcaJobView {
    const job = this.get(jobId);
    if (!job.results.some((r) => r.labels.some((l) => l.id === labelId))) throw notFound('Label', labelId);
    return this.d.vca.decide(labelId, decision, correctedText);
  }

  /** Accepts every pending label at or above the job's threshold. */
  acceptAbove(jobId: number): VcaJobView {
    let job = this.get(jobId);
    for (const r of job.results)
      for (const l of r.labels)
        if (l.decision === 'pending' && l.confidence >= job.minConfidence) job = this.d.vca.decide(l.id, 'accepted');
    return job;
  }

  setThreshold(jobId: number, minConfidence: number): VcaJobView {
    this.get(jobId);
    return this.d.vca.setMinConfidence(jobId, minConfidence);
  }

  labels(q: VcaLabelQuery): { hits: VcaLabelHit[]; total: number } {
    return this.d.labels(q);
  }

  export(jobIds: readonly number[], format: 'csv' | 'json'): ExportedFile {
    for (const id of jobIds) this.get(id);
    const rows = this.d.vca.exportRows(jobIds);
    return format === 'csv'
      ? { fileName: 'vca-labels.csv', mimeType: 'text/csv', content: exportCsv(rows) }
      : { fileName: 'vca-labels.json', mimeType: 'application/json', content: exportJson(rows) };
  }
}
