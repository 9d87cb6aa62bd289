import type { ErrorCode } from '../../shared/errors';
import type { SkipCode } from '../expand-paths';
import type { ServiceContext } from './context';
import type { AreaImpl } from './envelope';

/** Why a path was left out of an add, as the error catalog names it. */
const SKIP_CODES: Record<SkipCode, ErrorCode> = {
  'symlink-in-tree': 'symlink-skipped',
  unreadable: 'path-unreadable',
  'not-a-file': 'path-not-file-or-folder',
  'key-invalid': 'key-invalid',
};

/** Verbs `transfers.*` over the transfers use case (use-cases/transfers.ts). */
export function transfersArea(ctx: ServiceContext): AreaImpl<'transfers'> {
  const uc = ctx.transfers;
  return {
    list: (q) => uc.list(q),
    get: ({ id }) => uc.detail(id),
    add: async (input) => {
      const r = await uc.add(input, ctx.accounts.resolve(input.target.accountId));
      ctx.trackBatch(r.queued);
      return {
        queued: r.queued,
        alreadyUploaded: r.alreadyUploaded.map((a) => ({
          path: a.path,
          key: a.key,
          transferId: a.id,
          size: a.size,
          etag: a.etag,
        })),
        skipped: r.skipped.map((s) => ({ path: s.path, code: SKIP_CODES[s.code], reason: s.reason })),
        bytesQueued: r.bytesQueued,
      };
    },
    pause: (sel) => ({ count: uc.pause(sel) }),
    resume: (sel) => ({ count: uc.resume(sel) }),
    retry: (sel) => ({ count: uc.retry(sel) }),
    cancel: (sel) => ({ count: uc.cancel(sel) }),
    remove: async (sel) => {
      const removed = await uc.remove(sel);
      for (const id of removed) ctx.coalescer.transferRemoved(id);
      return { count: removed.length };
    },
  };
}
