import type { Db } from './db';

/** An account row (design.md "Data model"); never holds a secret, only where to find it. */
export interface AccountRecord {
  id: number;
  name: string;
  uploadUrl: string;
  mgrUrl: string | null;
  downloadDomain: string | null;
  accessKey: string | null;
  secretRef: string | null;
  tokenUrl: string | null;
  /** When the secret key was last set (Unix ms); null without one. */
  secretChangedAt: number | null;
}

/**
 * A row to write. `secretChangedAt`: given, it is stored (the caller just set the secret);
 * missing, it stays as it is while `secretRef` stays, becomes now when `secretRef` changes,
 * and null when there is no secret.
 */
export type AccountInput = Omit<AccountRecord, 'id' | 'secretChangedAt'> & { secretChangedAt?: number | null };

interface AccountRow {
  id: number;
  name: string;
  upload_url: string;
  mgr_url: string | null;
  download_domain: string | null;
  access_key: string | null;
  secret_ref: string | null;
  token_url: string | null;
  secret_changed_at: number | null;
}

function toRecord(r: AccountRow): AccountRecord {
  return {
    id: r.id,
    name: r.name,
    uploadUrl: r.upload_url,
    mgrUrl: r.mgr_url,
    downloadDomain: r.download_domain,
    accessKey: r.access_key,
    secretRef: r.secret_ref,
    tokenUrl: r.token_url,
    secretChangedAt: r.secret_changed_at,
  };
}

/** The new secret_changed_at of an existing row (AccountInput.secretChangedAt); `secret_ref` is still the old one here. */
const SECRET_CHANGED_AT = `CASE WHEN @secretRef IS NULL THEN NULL
  WHEN @secretChangedAt IS NOT NULL THEN @secretChangedAt
  WHEN accounts.secret_ref IS @secretRef THEN COALESCE(accounts.secret_changed_at, @t)
  ELSE @t END`;

export class AccountRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates the account or updates the one with the same name; returns its id. */
  upsert(a: AccountInput): number {
    const t = this.now();
    const row = this.db
      .prepare(
        `INSERT INTO accounts (name, upload_url, mgr_url, download_domain, access_key, secret_ref, token_url, created_at, updated_at,
           secret_changed_at)
         VALUES (@name, @uploadUrl, @mgrUrl, @downloadDomain, @accessKey, @secretRef, @tokenUrl, @t, @t,
           CASE WHEN @secretRef IS NULL THEN NULL ELSE COALESCE(@secretChangedAt, @t) END)
         ON CONFLICT(name) DO UPDATE SET upload_url = excluded.upload_url, mgr_url = excluded.mgr_url,
           download_domain = excluded.download_domain, access_key = excluded.access_key,
           secret_changed_at = ${SECRET_CHANGED_AT},
           secret_ref = excluded.secret_ref, token_url = excluded.token_url, updated_at = excluded.updated_at
         RETURNING id`,
      )
      .get({ ...a, secretChangedAt: a.secretChangedAt ?? null, t }) as { id: number };
    return row.id;
  }

  get(id: number): AccountRecord | undefined {
    const r = this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined;
    return r && toRecord(r);
  }

  byName(name: string): AccountRecord | undefined {
    const r = this.db.prepare('SELECT * FROM accounts WHERE name = ?').get(name) as AccountRow | undefined;
    return r && toRecord(r);
  }

  list(): AccountRecord[] {
    return (this.db.prepare('SELECT * FROM accounts ORDER BY id').all() as AccountRow[]).map(toRecord);
  }

  /** Changes every field of an existing account (its name too); false when there is no such id. */
  update(id: number, a: AccountInput): boolean {
    return (
      this.db
        .prepare(
          `UPDATE accounts SET name = @name, upload_url = @uploadUrl, mgr_url = @mgrUrl, download_domain = @downloadDomain,
             access_key = @accessKey, secret_changed_at = ${SECRET_CHANGED_AT}, secret_ref = @secretRef,
             token_url = @tokenUrl, updated_at = @t WHERE id = @id`,
        )
        .run({ ...a, secretChangedAt: a.secretChangedAt ?? null, id, t: this.now() }).changes === 1
    );
  }

  /** How many transfers and watched folders refer to the account (it cannot be removed while any do). */
  usage(id: number): number {
    const t = this.db.prepare('SELECT count(*) FROM transfers WHERE account_id = ?').pluck().get(id) as number;
    const r = this.db.prepare('SELECT count(*) FROM watch_roots WHERE account_id = ?').pluck().get(id) as number;
    return t + r;
  }

  remove(id: number): boolean {
    return this.db.prepare('DELETE FROM accounts WHERE id = ?').run(id).changes === 1;
  }
}
