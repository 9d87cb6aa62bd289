import type { TaskListQuery } from '../../shared/contract';
import type { FmgrTaskView, VcaJobView } from '../../shared/task-views';
import type { FmgrOpName } from '../../shared/fmgr-ops';
import { queryVcaLabels } from '../../store/vca-label-query';
import { fmgrStateName } from '../../tasks/fmgr-view';
import { exportCsv, exportJson } from '../../tasks/vca-export';
import type { ServiceContext } from './context';
import type { AreaImpl } from './envelope';
import { AppServiceError, notFound } from './errors';

/** The account whose row a lookup prefers: the given one, else the default (none configured: any row will do). */
function lookupAccount(ctx: ServiceContext, given: number | undefined): number {
  if (given !== undefined) return ctx.accountId(given);
  try {
    return ctx.accountId(undefined);
  } catch {
    return 0;
  }
}

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

export function fmgrArea(ctx: ServiceContext): AreaImpl<'fmgr'> {
  const fmgr = ctx.core.fmgr;
  const must = (id: number): FmgrTaskView => {
    const v = fmgr.get(id);
    if (!v) throw notFound('Fmgr task', id);
    return v;
  };
  return {
    submit: (input) => {
      const op = input.ops[0]!.op as FmgrOpName;
      if (input.ops.some((o) => o.op !== op))
        throw new AppServiceError('fmgr-invalid-op', { detail: 'every operation of one submission has the same op' });
      return fmgr.submit(ctx.accountId(input.accountId), op, input.ops, {
        ...(input.force !== undefined ? { force: input.force ? 1 : 0 } : {}),
        ...(input.separate !== undefined ? { separate: input.separate ? 1 : 0 } : {}),
      });
    },
    track: async ({ accountId, persistentId }) => {
      const acct = ctx.accountId(accountId);
      const before = fmgr.find(acct, persistentId.trim());
      const v = fmgr.track(acct, persistentId);
      const polled = (await fmgr.pollNow(v.id)) ?? v;
      // Never seen here and the service gave no state: a typo, or a task of another service.
      if (!before && polled.state === null && polled.error) {
        fmgr.forget(polled.id);
        throw notFoundRemote('Fmgr task', persistentId, polled.error.message);
      }
      return polled;
    },
    lookup: ({ accountId, persistentId }) =>
      fmgr.findAnyAccount(lookupAccount(ctx, accountId), persistentId.trim()) ?? null,
    list: (q) => page((o) => fmgr.list(o), q),
    get: ({ id }) => {
      const v = must(id);
      const history = fmgr.snapshots(id).map((s) => ({
        at: s.firstSeenAt,
        code: s.code,
        state: fmgrStateName(s.code, s.source),
        source: s.source,
      }));
      return { ...v, history };
    },
  };
}

export function vcaArea(ctx: ServiceContext): AreaImpl<'vca'> {
  const vca = ctx.core.vca;
  const must = (id: number): VcaJobView => {
    const v = vca.get(id);
    if (!v) throw notFound('VCA job', id);
    return v;
  };
  return {
    create: async ({ accountId, source, minConfidence }) => {
      if ('url' in source) {
        const acct = ctx.accountId(accountId);
        // The Local account has one bucket (the embedded emulator's): a URL job needs no choice there.
        const embedded = ctx.core.embedded;
        const bucket = source.bucket ?? (embedded && acct === embedded.accountId ? embedded.bucket : '');
        return vca.create({ accountId: acct, bucket, source: source.url, minConfidence });
      }
      const t = ctx.core.transferRows.get(source.transferId)?.record;
      if (!t) throw notFound('Transfer', source.transferId);
      const domain = ctx.core.accounts.get(t.accountId)?.downloadDomain;
      if (!domain)
        throw new AppServiceError('account-invalid', {
          detail: 'the account has no download domain, so the service cannot fetch the video',
        });
      return vca.createForObject({
        accountId: t.accountId,
        bucket: t.bucket,
        key: t.key,
        downloadDomain: domain,
        transferId: t.id,
        minConfidence,
      });
    },
    track: async ({ accountId, jobId }) => {
      const acct = ctx.accountId(accountId);
      const before = vca.find(acct, jobId.trim());
      const v = vca.track(acct, jobId);
      const polled = (await vca.pollNow(v.id)) ?? v;
      if (!before && polled.error?.code === 'not-found') {
        vca.forget(polled.id);
        throw notFoundRemote('VCA job', jobId, polled.error.message);
      }
      return polled;
    },
    lookup: ({ accountId, jobId }) => vca.findAnyAccount(lookupAccount(ctx, accountId), jobId.trim()) ?? null,
    list: (q) => page((o) => vca.list(o), q),
    get: ({ id }) => must(id),
    decide: ({ jobId, labelId, decision, correctedText }) => {
      const job = must(jobId);
      if (!job.results.some((r) => r.labels.some((l) => l.id === labelId))) throw notFound('Label', labelId);
      return vca.decide(labelId, decision, correctedText);
    },
    acceptAbove: ({ jobId }) => {
      let job = must(jobId);
      for (const r of job.results)
        for (const l of r.labels)
          if (l.decision === 'pending' && l.confidence >= job.minConfidence) job = vca.decide(l.id, 'accepted');
      return job;
    },
    setThreshold: ({ jobId, minConfidence }) => {
      must(jobId);
      return vca.setMinConfidence(jobId, minConfidence);
    },
    labels: (q) => queryVcaLabels(ctx.core.db, q),
    export: ({ jobIds, format }) => {
      for (const id of jobIds) must(id);
      const rows = vca.exportRows(jobIds);
      return format === 'csv'
        ? { fileName: 'vca-labels.csv', mimeType: 'text/csv', content: exportCsv(rows) }
        : { fileName: 'vca-labels.json', mimeType: 'application/json', content: exportJson(rows) };
    },
  };
}
