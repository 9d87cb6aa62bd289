import type { Migration } from '../db';
import { migration001Core } from './001_core';

/**
 * Every schema step of the app database, in order. Add one line per migration file; never
 * edit a migration that has shipped, add a new one.
 */
export const MIGRATIONS: Migration[] = [
  migration001Core,
  // 002_tasks.ts (Fmgr tasks, VCA jobs) goes here: migration002Tasks,
  // 003_sync.ts (watch roots, file index) goes here: migration003Sync,
];
