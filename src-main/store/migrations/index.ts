import type { Migration } from '../db';
import { migration001Core } from './001_core';
import { migration002Tasks } from './002_tasks';

/**
 * Every schema step of the app database, in order. Add one line per migration file; never
 * edit a migration that has shipped, add a new one.
 */
export const MIGRATIONS: Migration[] = [
  migration001Core,
  migration002Tasks,
  // 003_sync.ts (watch roots, file index) goes here: migration003Sync,
];
