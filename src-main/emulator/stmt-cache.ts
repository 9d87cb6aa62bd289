import type Database from 'better-sqlite3';
import type { Db } from '../base/sqlite';

/**
 * Statements prepared once per SQL text and reused (preparing costs more than running a
 * one-row statement). One cache per database; the statements live as long as it does.
 */
export class StatementCache {
  private readonly stmts = new Map<string, Database.Statement>();

  constructor(private readonly db: Db) {}

  get<P extends unknown[] = unknown[], R = unknown>(sql: string): Database.Statement<P, R> {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s as unknown as Database.Statement<P, R>;
  }
}
