import { RUNNING_STATES } from '../../engine/snapshot';
import type { TransferDetail, TransferSelection, TransferView } from '../../shared/contract';
import type { ErrorCode } from '../../shared/errors';
import { TERMINAL_TRANSFER_STATES, type TransferState } from '../../shared/models';
import { objectAccessUrl } from '../../tasks/access-url';
import { addFiles } from '../add-files';
import type { SkipCode } from '../expand-paths';
import type { ServiceContext } from './context';
import type { AreaImpl } from './envelope';
import { notFound } from './errors';
import { blockViews, etagCheck, transferView } from './views';

const ACTIVE: readonly TransferState[] = ['queued', ...RUNNING_STATES];
const UNFINISHED: readonly TransferState[] = ['queued', 'paused', 'failed', ...RUNNING_STATES];

/** Waits until a transfer is in a terminal state (after a cancel of a running one), at most `ms`. */
function whenTerminal(ctx: ServiceContext, id: number, ms = 10_000): Promise<void> {
  const done = () => {
    const s = ctx.core.engine.get(id)?.state;
    return s === undefined || TERMINAL_TRANSFER_STATES.includes(s);
  };
  if (done()) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(finish, ms);
    const off = ctx.core.engine.onTransferChange((t) => {
      if (t.id === id && done()) finish();
    });
    function finish() {
      clearTimeout(timer);
      off();
      resolve();
    }
  });
}

function detail(ctx: ServiceContext, id: number): TransferDetail {
  const row = ctx.core.transferRows.get(id);
  if (!row) throw notFound('Transfer', id);
  const view = transferView(row, ctx.live.get(id));
  const r = row.record;
  const logged = ctx.core.transferRows.lastLogged(id);
  let lastReply: TransferDetail['lastReply'] = null;
  if (r.returnBody)
    lastReply = { status: null, requestId: null, body: JSON.stringify(r.returnBody), at: r.finishedAt ?? r.updatedAt };
  else if (r.lastError || logged)
    lastReply = {
      status: null,
      // The engine logs the reply's request id with the failure or retry (event log data), never parsed from words.
      requestId: logged?.requestId ?? null,
      body: r.lastError?.message ?? logged?.message ?? null,
      at: logged?.at ?? r.updatedAt,
    };
  const domain = ctx.core.accounts.get(r.accountId)?.downloadDomain;
  let url: string | null = null;
  if (domain && r.state === 'done') {
    try {
      url = objectAccessUrl(domain, r.key);
    } catch {
      url = null;
    }
  }
  return {
    ...view,
    blocks: blockViews(view, ctx.core.transferRows.blocks(id), r.blockSize),
    blockSize: r.blockSize,
    options: r.options,
    etagCheck: etagCheck(view),
    lastReply,
    url,
  };
}

/** Why a path was left out of an add, as the error catalog names it. */
const SKIP_CODES: Record<SkipCode, ErrorCode> = {
  'symlink-in-tree': 'symlink-skipped',
  unreadable: 'path-unreadable',
  'not-a-file': 'path-not-file-or-folder',
  'key-invalid': 'key-invalid',
};

export function transfersArea(ctx: ServiceContext): AreaImpl<'transfers'> {
  const rows = ctx.core.transferRows;
  const select = (sel: TransferSelection, states: readonly TransferState[]) =>
    'all' in sel ? rows.idsIn(states) : rows.idsIn(states, sel.ids);
  const each = (ids: readonly number[], fn: (id: number) => boolean) => ({ count: ids.filter(fn).length });
  return {
    list: (q) => {
      const page = rows.list(q);
      const out: TransferView[] = page.rows.map((r) => transferView(r, ctx.live.get(r.record.id)));
      return { rows: out, total: page.total, totals: page.totals };
    },
    get: ({ id }) => detail(ctx, id),
    add: async (input) => {
      const settings = ctx.core.settingsStore.get();
      const accountId = ctx.accountId(input.target.accountId);
      const { blockSize, ...options } = input.options ?? {};
      const r = await addFiles(
        {
          store: ctx.core.transferStore,
          queue: {
            enqueue: (reqs) => ctx.core.engine.enqueue(reqs),
            resume: (id) => ctx.core.pauses.resume(id, 'user'),
          },
        },
        {
          paths: input.paths,
          accountId,
          bucket: input.target.bucket,
          prefix: input.target.prefix,
          key: input.target.key,
          source: input.source ?? 'manual',
          blockSize: blockSize ?? settings.blockSize,
          options: { ...options, conflict: options.conflict ?? settings.conflict },
          // Only an explicit overwrite re-sends files already uploaded, not the default policy.
          resendUploaded: options.conflict === 'overwrite',
        },
      );
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
    pause: (sel) => each(select(sel, [...ACTIVE, 'paused']), (id) => ctx.core.pauses.pause(id, 'user')),
    resume: (sel) => each(select(sel, ['paused']), (id) => ctx.core.pauses.resume(id, 'user')),
    retry: (sel) => each(select(sel, ['failed']), (id) => ctx.core.pauses.resume(id, 'user')),
    cancel: (sel) => each(select(sel, UNFINISHED), (id) => ctx.core.engine.cancel(id)),
    remove: async (sel) => {
      const ids = 'all' in sel ? rows.idsIn([...TERMINAL_TRANSFER_STATES, ...UNFINISHED]) : sel.ids;
      for (const id of rows.idsIn(UNFINISHED, ids)) {
        ctx.core.engine.cancel(id);
        await whenTerminal(ctx, id);
      }
      const removed = rows.removeFinished(ids);
      for (const id of removed) ctx.coalescer.transferRemoved(id);
      return { count: removed.length };
    },
  };
}
