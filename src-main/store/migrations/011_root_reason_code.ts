import type { Migration } from '../db';

/**
 * Why a watched folder is unavailable, by the error catalog's code (shared/errors.ts) and its
 * template's params as a JSON object, beside the English `unavailable_reason`, so its card
 * says it in the UI's language after a restart too. Rows of older versions keep only the
 * English (both new columns NULL): the card shows that text.
 */
export const migration011RootReasonCode: Migration = {
  version: 11,
  name: 'root-reason-code',
  up(db) {
    db.exec(`
      ALTER TABLE watch_roots ADD COLUMN unavailable_code TEXT;
      ALTER TABLE watch_roots ADD COLUMN unavailable_params_json TEXT;
    `);
  },
};
