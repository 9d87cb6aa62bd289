import type { DisposableLike } from '../../base/disposable';
import type { CoreProblem } from '../../shared/events';
import type { SqliteTransferStore } from '../../store/transfer-repo';
import { queryVcaLabels } from '../../store/vca-label-query';
import type { AppCoreOptions } from '../app-core-options';
import { stagingDir } from '../data-dir';
import type { CoreParts } from '../core-parts';
import type { CoreResources } from '../core-resources';
import { AccountsUseCase } from './accounts';
import { AppInfo } from './app';
import { RootsUseCase } from './roots';
import { SettingsUseCase } from './settings';
import { FmgrUseCase, VcaUseCase } from './tasks';
import { TransfersUseCase } from './transfers';

export type { SessionAccountInput } from './accounts';

/** What the service's verbs act through: one use case per area, each holding only the stores and parts it needs. */
export interface UseCases {
  transfers: TransfersUseCase;
  /** Watched folders: `RootsUseCase.add` is where adding one happens. */
  roots: RootsUseCase;
  fmgr: FmgrUseCase;
  vca: VcaUseCase;
  settings: SettingsUseCase;
  accounts: AccountsUseCase;
  app: AppInfo;
  /** The event log (what a verb threw that no mapping knows goes there). */
  eventLog: Pick<SqliteTransferStore, 'logEvent'>;
}

/**
 * Builds every use case over the core's parts, in one place. Returns them and what they
 * hold (their subscriptions to the engine and the watch roots), for the core's lifetime to
 * release.
 */
export function buildUseCases(
  r: CoreResources,
  p: CoreParts,
  opts: Pick<AppCoreOptions, 'engine'>,
  problem: (pr: CoreProblem) => void,
): { useCases: UseCases; disposables: DisposableLike[] } {
  const transfers = new TransfersUseCase({
    rows: p.transferRows,
    store: p.transferStore,
    engine: p.engine,
    pauses: p.pauses,
    settings: p.settingsStore,
    accounts: p.accounts,
    stagingDir: stagingDir(r.dataDir),
  });
  const roots = new RootsUseCase({ repo: p.syncRepo, watch: p.watch, dataDir: r.dataDir, problem });
  const local = r.embedded && { accountId: r.embedded.accountId, bucket: r.embedded.bucket };
  const useCases: UseCases = {
    transfers,
    roots,
    fmgr: new FmgrUseCase(p.fmgr),
    vca: new VcaUseCase({
      vca: p.vca,
      transfers: p.transferRows,
      accounts: p.accounts,
      local,
      labels: (q) => queryVcaLabels(r.db, q),
    }),
    settings: new SettingsUseCase({
      store: p.settingsStore,
      schedule: p.uploadSchedule,
      engine: p.engine,
      transfers: p.transferStore,
      runEngine: opts.engine,
      problem,
    }),
    accounts: new AccountsUseCase({
      repo: p.accounts,
      prefs: r.prefs,
      secrets: r.secrets,
      access: r.access,
      engine: p.engine,
      holds: p.credentialHolds,
      settings: p.settingsStore,
      log: p.transferStore,
      localAccountId: r.embedded?.accountId,
    }),
    app: new AppInfo({
      db: r.db,
      dataDir: r.dataDir,
      embedded: r.embedded,
      rows: p.transferRows,
      schedule: p.uploadSchedule,
      accounts: p.accounts,
      prefs: r.prefs,
      roots: p.syncRepo,
      secrets: r.secrets,
      settings: p.settingsStore,
    }),
    eventLog: p.transferStore,
  };
  return { useCases, disposables: [transfers, roots] };
}
