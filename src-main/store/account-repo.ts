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
}

export type AccountInput = Omit<AccountRecord, 'id'>;

interface AccountRow {
  id: number;
  name: string;
  upload_url: string;
  mgr_url: string | null;
  download_domain: string | null;
  access_key: string | null;
  secret_ref: string | null;
  token_url: string | null;
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
  };
}

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
        `INSERT INTO accounts (name, upload_url, mgr_url, download_domain, access_key, secret_ref, token_url, created_at, updated_at)
         VALUES (@name, @uploadUrl, @mgrUrl, @downloadDomain, @accessKey, @secretRef, @tokenUrl, @t, @t)
         ON CONFLICT(name) DO UPDATE SET upload_url = excluded.upload_url, mgr_url = excluded.mgr_url,
           download_domain = excluded.download_domain, access_key = excluded.access_key,
           secret_ref = excluded.secret_ref, token_url = excluded.token_url, updated_at = excluded.updated_at
         RETURNING id`,
      )
      .get({ ...a, t }) as { id: number };
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
}
