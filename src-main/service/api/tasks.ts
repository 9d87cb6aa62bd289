import type { ServiceContext } from './context';
import type { AreaImpl } from './envelope';

/** Verbs `fmgr.*` over the Fmgr tasks use case (use-cases/tasks.ts). */
export function fmgrArea(ctx: ServiceContext): AreaImpl<'fmgr'> {
  const uc = ctx.fmgr;
  return {
    submit: (input) => uc.submit(ctx.accounts.resolve(input.accountId), input),
    track: ({ accountId, persistentId }) => uc.track(ctx.accounts.resolve(accountId), persistentId),
    lookup: ({ accountId, persistentId }) => uc.lookup(ctx.accounts.preferred(accountId), persistentId),
    list: (q) => uc.list(q),
    get: ({ id }) => uc.get(id),
  };
}

/** Verbs `vca.*` over the VCA jobs use case (use-cases/tasks.ts). */
export function vcaArea(ctx: ServiceContext): AreaImpl<'vca'> {
  const uc = ctx.vca;
  return {
    create: ({ accountId, source, minConfidence }) =>
      'url' in source
        ? uc.createFromUrl(ctx.accounts.resolve(accountId), source, minConfidence)
        : uc.createForTransfer(source.transferId, minConfidence),
    track: ({ accountId, jobId }) => uc.track(ctx.accounts.resolve(accountId), jobId),
    lookup: ({ accountId, jobId }) => uc.lookup(ctx.accounts.preferred(accountId), jobId),
    list: (q) => uc.list(q),
    get: ({ id }) => uc.get(id),
    decide: (input) => uc.decide(input),
    acceptAbove: ({ jobId }) => uc.acceptAbove(jobId),
    setThreshold: ({ jobId, minConfidence }) => uc.setThreshold(jobId, minConfidence),
    labels: (q) => uc.labels(q),
    export: ({ jobIds, format }) => uc.export(jobIds, format),
  };
}
