import type { Migration } from '../db';

/**
 * Fmgr tasks and VCA jobs (design.md "Data model"), with every distinct status snapshot,
 * the latest per-item results, VCA labels and the reviewer's decision on each label.
 * Times are Unix milliseconds.
 *
 * account_id is accounts.id, or 0 for work done with command-line flags and no account
 * row; it is deliberately not a foreign key so that such rows can exist. mgr_url records
 * which management host a task or job belongs to, so a later process can poll it again.
 *
 * tracking is Blocklift's own follow-up state, not the service's code:
 *   active  = still polled (or waiting for a notification);
 *   done    = a terminal service state was seen;
 *   lost    = the service kept answering "unknown id" past the give-up rule;
 *   failed  = an error that cannot get better by waiting (for example 400);
 *   stopped = the user stopped following it.
 */
// The statements keep the indentation they were first written with: SQLite stores their text.

/** Fmgr tasks, their items and their distinct status snapshots. */
const FMGR_TABLES = `
      CREATE TABLE fmgr_tasks (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL DEFAULT 0,
        mgr_url TEXT,
        persistent_id TEXT NOT NULL,
        origin TEXT NOT NULL CHECK (origin IN ('typed','submitted','upload','notification')),
        op TEXT,
        fops TEXT,
        notify_url TEXT,
        tracking TEXT NOT NULL DEFAULT 'active' CHECK (tracking IN ('active','done','lost','failed','stopped')),
        -- latest service code, and which table it belongs to: 'poll' = query code, 'notify' = notification code
        code INTEGER,
        code_source TEXT CHECK (code_source IN ('poll','notify')),
        description TEXT,
        separate TEXT,
        error_code TEXT,
        error_message TEXT,
        error_at INTEGER,
        consecutive_errors INTEGER NOT NULL DEFAULT 0,
        not_found_since INTEGER,
        polls INTEGER NOT NULL DEFAULT 0,
        next_poll_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        finished_at INTEGER,
        UNIQUE (account_id, persistent_id)
      );
      CREATE INDEX fmgr_tasks_tracking ON fmgr_tasks(tracking, id);
      CREATE INDEX fmgr_tasks_pid ON fmgr_tasks(persistent_id);

      CREATE TABLE fmgr_task_items (
        task_id INTEGER NOT NULL REFERENCES fmgr_tasks(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        cmd TEXT NOT NULL,
        code INTEGER NOT NULL,
        description TEXT NOT NULL,
        error TEXT,
        hash TEXT,
        fsize INTEGER,
        key TEXT,
        url TEXT,
        decompresslist TEXT,
        PRIMARY KEY (task_id, idx)
      ) WITHOUT ROWID;

      -- One row per distinct status body, in arrival order; an identical body seen again
      -- only bumps seen_count and last_seen_at.
      CREATE TABLE fmgr_snapshots (
        id INTEGER PRIMARY KEY,
        task_id INTEGER NOT NULL REFERENCES fmgr_tasks(id) ON DELETE CASCADE,
        source TEXT NOT NULL CHECK (source IN ('poll','notify')),
        code INTEGER NOT NULL,
        body_json TEXT NOT NULL,
        first_seen_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        seen_count INTEGER NOT NULL DEFAULT 1
      );
      CREATE INDEX fmgr_snapshots_task ON fmgr_snapshots(task_id, id);
    `;

/** VCA jobs and their labels, with the reviewer's decision on each. */
const VCA_TABLES = `
      CREATE TABLE vca_jobs (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL DEFAULT 0,
        mgr_url TEXT,
        job_id TEXT NOT NULL,
        bucket TEXT,
        source_url TEXT,
        origin TEXT NOT NULL CHECK (origin IN ('created','typed','watch','transfer','notification')),
        transfer_id INTEGER,
        notify_url TEXT,
        tracking TEXT NOT NULL DEFAULT 'active' CHECK (tracking IN ('active','done','lost','failed','stopped')),
        code INTEGER,
        description TEXT,
        notify_result INTEGER,
        min_confidence REAL NOT NULL DEFAULT 0.5 CHECK (min_confidence >= 0 AND min_confidence <= 1),
        error_code TEXT,
        error_message TEXT,
        error_at INTEGER,
        consecutive_errors INTEGER NOT NULL DEFAULT 0,
        not_found_since INTEGER,
        polls INTEGER NOT NULL DEFAULT 0,
        next_poll_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        finished_at INTEGER,
        UNIQUE (account_id, job_id)
      );
      CREATE INDEX vca_jobs_tracking ON vca_jobs(tracking, id);
      CREATE INDEX vca_jobs_job ON vca_jobs(job_id);

      -- Labels of a job; a label is (type, attribute). Results arriving again update the
      -- confidence and keep the decision.
      CREATE TABLE vca_labels (
        id INTEGER PRIMARY KEY,
        job_row INTEGER NOT NULL REFERENCES vca_jobs(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        attribute TEXT NOT NULL,
        confidence REAL NOT NULL,
        position INTEGER NOT NULL,
        decision TEXT NOT NULL DEFAULT 'pending' CHECK (decision IN ('pending','accepted','rejected','corrected')),
        corrected_text TEXT,
        decided_at INTEGER,
        CHECK ((decision = 'corrected') = (corrected_text IS NOT NULL)),
        UNIQUE (job_row, type, attribute)
      );
    `;

export const migration002Tasks: Migration = {
  version: 2,
  name: 'tasks',
  up(db) {
    db.exec(FMGR_TABLES);
    db.exec(VCA_TABLES);
  },
};
