import type { ProgressEvent } from '../../engine/api';
import type { UploadEngine } from '../../engine/engine';
import { RUNNING_STATES } from '../../engine/snapshot';
import type {
  AddTransfersInput,
  TransferDetail,
  TransferQuery,
  TransferTotals,
  TransferSelection,
  TransferView,
} from '../../shared/contract';
import { TERMINAL_TRANSFER_STATES, type TransferState } from '../../shared/models';
import type { AccountRepo } from '../../store/account-repo';
import type { TransferQueryRepo } from '../../store/transfer-query';
import type { SqliteTransferStore } from '../../store/transfer-repo';
import { objectAccessUrl } from '../../tasks/access-url';
import { addFiles, type AddFilesResult } from '../add-files';
import { namedAsDropped } from '../data-dir';
import { notFound } from '../api/errors';
import { blockViews, etagCheck, transferView } from './views';
import type { Pauses } from '../pauses';
import type { SettingsStore } from '../settings-store';

const ACTIVE: readonly TransferState[] = ['queued', ...RUNNING_STATES];
const UNFINISHED: readonly TransferState[] = ['queued', 'paused', 'failed', ...RUNNING_STATES];

export interface TransfersDeps {
  /** The transfer list, its blocks and the pause reasons. */
  rows: TransferQueryRepo;
  /** The engine's own store: the newest transfer of a file (add-files). */
  store: Pick<SqliteTransferStore, 'findLatest'>;
  engine: Pick<UploadEngine, 'enqueue' | 'cancel' | 'get' | 'onTransferChange' | 'onProgress'>;
  pauses: Pick<Pauses, 'pause' | 'resume'>;
  /** Block size and conflict policy of new transfers. */
  settings: Pick<SettingsStore, 'get'>;
  /** The download domain of a done transfer's account (its access URL). */
  accounts: Pick<AccountRepo, 'get'>;
  /** Where the door stages files dropped in a browser (data-dir.ts `stagingDir`): such a transfer is named as dropped. */
  stagingDir?: string;
}

/**
 * The transfers use case (verbs `transfers.*`): the list and one transfer's detail with the
 * engine's live progress, adding files (add-files.ts), and pause, resume, retry, cancel and
 * remove of a selection. Keeps the latest progress of each running transfer itself (the
 * engine's progress events); `dispose()` stops listening.
 */
export class TransfersUseCase {
  private readonly live = new Map<number, ProgressEvent>();
  private readonly unsubscribe: Array<() => void>;

  constructor(private readonly d: TransfersDeps) {
    this.unsubscribe = [
      d.engine.onProgress((p) => this.live.set(p.id, p)),
      d.engine.onTransferChange((t) => {
        if (!RUNNING_STATES.includes(t.state)) this.live.delete(t.id);
      }),
    ];
  }

  dispose(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /** One row as a list shows it (undefined when gone). */
  view(id: number): TransferView | undefined {
    const row = this.d.rows.get(id);
    return row && transferView(row, this.live.get(id), this.d.stagingDir);
  }

  totals(): TransferTotals {
    return this.d.rows.totals();
  }

  list(q: TransferQuery): { rows: TransferView[]; total: number; totals: TransferTotals } {
    const page = this.d.rows.list(q);
    return {
      rows: page.rows.map((r) => transferView(r, this.live.get(r.record.id), this.d.stagingDir)),
      total: page.total,
      totals: page.totals,
    };
  }

  detail(id: number): TransferDetail {
    const row = this.d.rows.get(id);
    if (!row) throw notFound('Transfer', id);
    const view = transferView(row, this.live.get(id), this.d.stagingDir);
    const r = row.record;
    const logged = this.d.rows.lastLogged(id);
    let lastReply: TransferDetail['lastReply'] = null;
    if (r.returnBody)
      lastReply = {
        status: null,
        requestId: null,
        body: JSON.stringify(r.returnBody),
        at: r.finishedAt ?? r.updatedAt,
      };
    else if (r.lastError || logged)
      lastReply = {
        status: null,
        // The engine logs the reply's request id with the failure or retry (event log data), never parsed from words.
        requestId: logged?.requestId ?? null,
        body:
          view.lastError?.message ?? (logged && namedAsDropped(logged.message, r.localPath, view.droppedAs)) ?? null,
        at: logged?.at ?? r.updatedAt,
      };
    const domain = this.d.accounts.get(r.accountId)?.downloadDomain;
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
      blocks: blockViews(view, this.d.rows.blocks(id), r.blockSize),
      blockSize: r.blockSize,
      options: r.options,
      etagCheck: etagCheck(view),
      lastReply,
      url,
    };
  }

  /** Files and folders → transfers of `accountId` (add-files.ts), with the stored block size and conflict policy as defaults. */
  add(input: AddTransfersInput, accountId: number): Promise<AddFilesResult> {
    const settings = this.d.settings.get();
    const { blockSize, ...options } = input.options ?? {};
    return addFiles(
      {
        store: this.d.store,
        queue: {
          enqueue: (reqs) => this.d.engine.enqueue(reqs),
          resume: (id) => this.d.pauses.resume(id, 'user'),
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
  }

  pause(sel: TransferSelection): number {
    return this.each(this.select(sel, [...ACTIVE, 'paused']), (id) => this.d.pauses.pause(id, 'user'));
  }

  resume(sel: TransferSelection): number {
    return this.each(this.select(sel, ['paused']), (id) => this.d.pauses.resume(id, 'user'));
  }

  retry(sel: TransferSelection): number {
    return this.each(this.select(sel, ['failed']), (id) => this.d.pauses.resume(id, 'user'));
  }

  cancel(sel: TransferSelection): number {
    return this.each(this.select(sel, UNFINISHED), (id) => this.d.engine.cancel(id));
  }

  /** Cancels what is unfinished (waiting until it ended), then removes the finished rows; returns the removed ids. */
  async remove(sel: TransferSelection): Promise<number[]> {
    const rows = this.d.rows;
    const ids = 'all' in sel ? rows.idsIn([...TERMINAL_TRANSFER_STATES, ...UNFINISHED]) : sel.ids;
    for (const id of rows.idsIn(UNFINISHED, ids)) {
      this.d.engine.cancel(id);
      await this.whenTerminal(id);
    }
    return rows.removeFinished(ids);
  }

  private select(sel: TransferSelection, states: readonly TransferState[]): number[] {
    return 'all' in sel ? this.d.rows.idsIn(states) : this.d.rows.idsIn(states, sel.ids);
  }

  private each(ids: readonly number[], fn: (id: number) => boolean): number {
    return ids.filter(fn).length;
  }

  /** Waits until a transfer is in a terminal state (after a cancel of a running one), at most `ms`. */
  private whenTerminal(id: number, ms = 10_000): Promise<void> {
    const done = () => {
      const s = this.d.engine.get(id)?.state;
      return s === undefined || TERMINAL_TRANSFER_STATES.includes(s);
    };
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(finish, ms);
      const off = this.d.engine.onTransferChange((t) => {
        if (t.id === id && done()) finish();
      });
      function finish() {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  }
}
