import type { Db } from '../base/sqlite';
import type { FmgrOpName } from '../protocol/fops';
import { FMGR_OPS } from '../protocol/fops';
import { fmgrItemState, fmgrTaskState } from '../protocol/codes';

/**
 * Persistence of the emulator's Fmgr tasks in its own SQLite database (one row per task,
 * items as JSON). Every state change is written at once, so a restart shows finished tasks
 * as they were and resumes the unfinished ones (see fmgr.ts).
 */

/** One operation of a task, with its result as the status query shows it. */
export interface FmgrItemRecord {
  /** The fops entry as submitted (without the op name). */
  fop: string;
  code: number;
  error: string;
  hash: string;
  fsize: number | null;
  key: string;
  url: string;
}

export interface FmgrTaskRecord {
  id: string;
  op: FmgrOpName;
  notifyUrl: string | null;
  force: boolean;
  separate: boolean;
  /** Top-level task code: 0 pending, 1 processing, 3 finished, 4 notifying, 5/6 notification failed/succeeded. */
  code: number;
  items: FmgrItemRecord[];
  createdAt: number;
  updatedAt: number;
}

/** The task object of the interface document (status reply and notification body). */
export interface FmgrStatusBody {
  id: string;
  code: number;
  desc: string;
  separate: string;
  items: {
    cmd: string;
    code: number;
    desc: string;
    error: string;
    hash: string;
    fsize?: number;
    key: string;
    url: string;
    decompresslist: string;
  }[];
}

export class FmgrTaskStore {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly getStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO emu_fmgr_tasks (id, op, notify_url, force, separate, code, items, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.updateStmt = db.prepare('UPDATE emu_fmgr_tasks SET code = ?, items = ?, updated_at = ? WHERE id = ?');
    this.getStmt = db.prepare('SELECT * FROM emu_fmgr_tasks WHERE id = ?');
  }

  insert(t: FmgrTaskRecord): void {
    this.insertStmt.run(
      t.id,
      t.op,
      t.notifyUrl,
      t.force ? 1 : 0,
      t.separate ? 1 : 0,
      t.code,
      JSON.stringify(t.items),
      t.createdAt,
      t.updatedAt,
    );
  }

  /** Writes the task's code and items (the only parts that change). */
  save(t: FmgrTaskRecord): void {
    this.updateStmt.run(t.code, JSON.stringify(t.items), t.updatedAt, t.id);
  }

  get(id: string): FmgrTaskRecord | undefined {
    const row = this.getStmt.get(id);
    return row === undefined ? undefined : rowToTask(row);
  }

  /** Tasks whose processing or notification did not end (code 0, 1 or 4), oldest first. */
  unfinished(): FmgrTaskRecord[] {
    return this.db
      .prepare('SELECT * FROM emu_fmgr_tasks WHERE code IN (0, 1, 4) ORDER BY created_at')
      .all()
      .map(rowToTask);
  }
}

class FmgrRowError extends Error {
  override readonly name = 'FmgrRowError';
}

/** Validates a row read back from SQLite; a corrupt row is an error naming the task. */
function rowToTask(raw: unknown): FmgrTaskRecord {
  const row = raw as Record<string, unknown>;
  const id = String(row.id);
  const op = String(row.op);
  if (!(FMGR_OPS as readonly string[]).includes(op)) throw new FmgrRowError(`Fmgr task ${id} has unknown op ${op}`);
  let items: unknown;
  try {
    items = JSON.parse(String(row.items));
  } catch {
    throw new FmgrRowError(`Fmgr task ${id} has unreadable items`);
  }
  if (!Array.isArray(items)) throw new FmgrRowError(`Fmgr task ${id} has unreadable items`);
  return {
    id,
    op: op as FmgrOpName,
    notifyUrl: typeof row.notify_url === 'string' ? row.notify_url : null,
    force: row.force === 1,
    separate: row.separate === 1,
    code: Number(row.code),
    items: items.map((it: unknown, i) => toItem(it, id, i)),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toItem(raw: unknown, id: string, i: number): FmgrItemRecord {
  if (typeof raw !== 'object' || raw === null) throw new FmgrRowError(`Fmgr task ${id} item ${i} is not an object`);
  const it = raw as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  if (typeof it.fop !== 'string' || typeof it.code !== 'number')
    throw new FmgrRowError(`Fmgr task ${id} item ${i} lacks fop or code`);
  return {
    fop: it.fop,
    code: it.code,
    error: text(it.error),
    hash: text(it.hash),
    fsize: typeof it.fsize === 'number' ? it.fsize : null,
    key: text(it.key),
    url: text(it.url),
  };
}

/** The status object of a task; `code` overrides the top-level code (notifications carry their own). */
export function taskStatusBody(
  t: FmgrTaskRecord,
  items: readonly FmgrItemRecord[] = t.items,
  code = t.code,
  desc = fmgrTaskState(code),
): FmgrStatusBody {
  return {
    id: t.id,
    code,
    desc,
    separate: t.separate ? '1' : '0',
    items: items.map((it) => ({
      cmd: `${t.op}/${it.fop}`,
      code: it.code,
      desc: fmgrItemState(it.code),
      error: it.error,
      hash: it.hash,
      ...(it.fsize === null ? {} : { fsize: it.fsize }),
      key: it.key,
      url: it.url,
      decompresslist: '',
    })),
  };
}
