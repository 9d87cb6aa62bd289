import type { ServiceContext } from './context';
import type { AreaImpl } from './envelope';

/** Verbs `roots.*` over the watched folders use case (use-cases/roots.ts). */
export function rootsArea(ctx: ServiceContext): AreaImpl<'roots'> {
  const uc = ctx.roots;
  return {
    list: () => uc.list(),
    plan: (input) => uc.plan(input),
    add: (input) => uc.add(input, ctx.accounts.resolve(input.accountId)),
    update: ({ id, prefix, options }) => uc.update(id, prefix, options),
    pause: async (sel) => {
      const ids = await uc.pause(sel);
      for (const id of ids) ctx.coalescer.rootChanged(id);
      return { count: ids.length };
    },
    resume: async (sel) => {
      const ids = await uc.resume(sel);
      for (const id of ids) ctx.coalescer.rootChanged(id);
      return { count: ids.length };
    },
    remove: async ({ id }) => {
      await uc.remove(id);
      ctx.coalescer.rootRemoved(id);
      return { removed: true as const };
    },
    rescan: async (sel) => ({ count: await uc.rescan(sel) }),
    previewIgnores: ({ path, options, limit }) => uc.previewIgnores(path, options, limit ?? 200),
  };
}
