import type { ServiceContext } from './context';
import type { AreaImpl } from './envelope';

/** Verbs `accounts.*` over the accounts use case (use-cases/accounts.ts); a change sends the `accounts` event. */
export function accountsArea(ctx: ServiceContext): AreaImpl<'accounts'> {
  const uc = ctx.accounts;
  const changed = () => ctx.emit('accounts', uc.views());
  return {
    list: () => uc.views(),
    save: (input) => {
      const view = uc.save(input);
      changed();
      return view;
    },
    remove: ({ id }) => {
      uc.remove(id);
      changed();
      return { removed: true as const };
    },
    test: ({ id }) => uc.test(id),
  };
}
