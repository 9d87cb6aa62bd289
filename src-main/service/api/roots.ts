import path from 'node:path';
import type { IgnorePreview, RootPlan, WatchRootView } from '../../shared/contract';
import { normalizeWatchOptions } from '../../sync/options';
import { PathFilter } from '../../sync/path-filter';
import { scanTree } from '../../sync/scanner';
import type { ServiceContext } from './context';
import type { AreaImpl } from './envelope';
import { notFound } from './errors';
import { refuseEmulatorDataDir } from '../emulator-guard';
import { rootView } from './views';

/** Files the ignore preview looks at, at most (a preview, not an index). */
const PREVIEW_MAX_FILES = 100_000;

export function viewOfRoot(ctx: ServiceContext, id: number): WatchRootView | undefined {
  const rec = ctx.core.syncRepo.getRoot(id);
  return rec && rootView(rec, ctx.core.watch.get(id), ctx.core.syncRepo, ctx.scans.get(id));
}

function mustView(ctx: ServiceContext, id: number): WatchRootView {
  const v = viewOfRoot(ctx, id);
  if (!v) throw notFound('Watched folder', id);
  return v;
}

/** Which files of a folder the options leave out, and why (the rules editor's preview). Reads only. */
async function previewIgnores(folder: string, input: Record<string, unknown>, limit: number): Promise<IgnorePreview> {
  const o = normalizeWatchOptions(input);
  const rules = new PathFilter(o);
  const everything = new PathFilter({ ignore: [], useDefaultIgnores: false, includeOnly: [], includeHidden: true });
  const out: IgnorePreview = { ignored: [], ignoredCount: 0, includedCount: 0 };
  let seen = 0;
  const sorted = (): IgnorePreview => {
    // readdir order differs between file systems; a person reads the preview as a sorted list
    out.ignored.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
    return out;
  };
  for await (const dir of scanTree({ root: path.resolve(folder), filter: everything, symlinks: o.symlinks })) {
    for (const f of dir.files) {
      if (++seen > PREVIEW_MAX_FILES) return sorted();
      const reason = rules.pathReason(f.relPath);
      if (!reason) {
        out.includedCount++;
        continue;
      }
      out.ignoredCount++;
      if (out.ignored.length < limit) out.ignored.push({ relPath: f.relPath, reason });
    }
  }
  return sorted();
}

export function rootsArea(ctx: ServiceContext): AreaImpl<'roots'> {
  const watch = ctx.core.watch;
  const ids = (sel: { id: number } | { all: true }) =>
    'all' in sel ? ctx.core.syncRepo.listRoots().map((r) => r.id) : [mustView(ctx, sel.id).id];
  return {
    list: () =>
      ctx.core.syncRepo.listRoots().map((r) => rootView(r, watch.get(r.id), ctx.core.syncRepo, ctx.scans.get(r.id))),
    plan: async (input): Promise<RootPlan> => {
      await refuseEmulatorDataDir(input.path, ctx.core.dataDir);
      const { plan } = await watch.plan({ folder: input.path, prefix: input.prefix, options: input.options });
      const { filesToUpload, bytesToUpload, estimatedSeconds, assumedBytesPerSecond, speedSource, ...counts } = plan;
      return { ...counts, filesToUpload, bytesToUpload, estimatedSeconds, assumedBytesPerSecond, speedSource };
    },
    add: async (input) => {
      await refuseEmulatorDataDir(input.path, ctx.core.dataDir);
      const root = await watch.addRoot({
        folder: input.path,
        accountId: ctx.accountId(input.accountId),
        bucket: input.bucket,
        prefix: input.prefix,
        options: input.options,
      });
      return mustView(ctx, root.id);
    },
    update: async ({ id, prefix, options }) => {
      const rec = ctx.core.syncRepo.getRoot(id);
      if (!rec) throw notFound('Watched folder', id);
      const root = await watch.addRoot({
        folder: rec.path,
        accountId: rec.accountId,
        bucket: rec.bucket,
        prefix: prefix ?? rec.prefix,
        options: { ...rec.options, ...options },
      });
      return mustView(ctx, root.id);
    },
    pause: async (sel) => {
      const list = ids(sel);
      for (const id of list) await watch.pauseRoot(id);
      for (const id of list) ctx.coalescer.rootChanged(id);
      return { count: list.length };
    },
    resume: async (sel) => {
      const list = ids(sel);
      for (const id of list) await watch.resumeRoot(id);
      for (const id of list) ctx.coalescer.rootChanged(id);
      return { count: list.length };
    },
    remove: async ({ id }) => {
      mustView(ctx, id);
      await watch.removeRoot(id);
      ctx.coalescer.rootRemoved(id);
      return { removed: true as const };
    },
    rescan: async (sel) => {
      let count = 0;
      for (const id of ids(sel)) {
        const r = watch.get(id);
        if (r?.state === 'watching') {
          await r.rescan();
          count++;
        }
      }
      return { count };
    },
    previewIgnores: ({ path: folder, options, limit }) => previewIgnores(folder, options, limit ?? 200),
  };
}
