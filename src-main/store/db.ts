/**
 * The app database's SQLite helpers: the neutral ones of base/sqlite.ts (WAL and pragmas,
 * numbered migrations in user_version), under the names store/ has always used.
 */
export { migrate, MigrationError, openDatabase, schemaVersion, type Db, type Migration } from '../base/sqlite';
