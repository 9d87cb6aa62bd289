import type { AppStatus } from '../../shared/contract';
import type { AccountRepo } from '../../store/account-repo';
import type { Db } from '../../store/db';
import type { SyncRepo } from '../../store/sync-repo';
import type { TransferQueryRepo } from '../../store/transfer-query';
import type { AccountPrefs } from '../account-prefs';
import { LOCAL_ACCOUNT_NAME, type EmbeddedEmulator } from '../embedded';
import { processHealth } from '../process-health';
import type { SecretStore } from '../secrets';
import type { SettingsStore } from '../settings-store';
import { writeSupportBundle } from '../support-bundle';
import type { UploadSchedule } from '../upload-schedule';

export interface AppInfoDeps {
  /** The support bundle reads the event log and the transfers from it (store/support-query.ts). */
  db: Db;
  dataDir: string;
  embedded: EmbeddedEmulator | undefined;
  rows: Pick<TransferQueryRepo, 'totals'>;
  schedule: Pick<UploadSchedule, 'current'>;
  accounts: Pick<AccountRepo, 'list'>;
  prefs: Pick<AccountPrefs, 'proxyOf'>;
  roots: Pick<SyncRepo, 'listRoots'>;
  secrets: SecretStore;
  settings: Pick<SettingsStore, 'get'>;
}

/** What `app.status` says of the backend (the door adds its own abilities and the throughput). */
export type BackendStatus = Omit<AppStatus, 'version' | 'door' | 'throughput' | 'can'>;

/** The app's own verbs (`app.status`, `app.supportBundle`) as far as the backend answers them. */
export class AppInfo {
  constructor(private readonly d: AppInfoDeps) {}

  get dataDir(): string {
    return this.d.dataDir;
  }

  status(): BackendStatus {
    const d = this.d;
    const totals = d.rows.totals();
    const sched = d.schedule.current;
    return {
      dataDir: d.dataDir,
      emulator: d.embedded ? { url: d.embedded.emulator.uploadUrl, accountId: d.embedded.accountId } : null,
      totals,
      paused: sched.running ? null : 'schedule',
      schedule: sched,
      secretStore: d.secrets.info(d.settings.get().storeSecretsWithoutKeyring),
      firstRun:
        d.accounts.list().every((a) => a.name === LOCAL_ACCOUNT_NAME) &&
        d.roots.listRoots().length === 0 &&
        Object.values(totals).every((n) => n === 0),
      health: processHealth(),
    };
  }

  /** Writes the support bundle (support-bundle.ts); `door` is named in it. */
  supportBundle(door: string): Promise<{ path: string; bytes: number }> {
    const d = this.d;
    return writeSupportBundle({
      db: d.db,
      dataDir: d.dataDir,
      accounts: d.accounts.list(),
      secrets: d.secrets,
      settings: d.settings.get(),
      proxyOf: (id) => d.prefs.proxyOf(id),
      door,
    });
  }
}
