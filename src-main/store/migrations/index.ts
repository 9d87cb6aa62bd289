import type { Migration } from '../db';
import { migration001Core } from './001_core';
import { migration002Tasks } from './002_tasks';
import { migration003Sync } from './003_sync';
import { migration004VcaRequests } from './004_vca_requests';
import { migration005PauseReason } from './005_pause_reason';
import { migration006StateCounts } from './006_state_counts';
import { migration007SecretChanged } from './007_secret_changed';
import { migration008SameBytes } from './008_same_bytes';
import { migration009TaskForTransfer } from './009_task_for_transfer';
import { migration010StoredObjects } from './010_stored_objects';
import { migration011RootReasonCode } from './011_root_reason_code';

/**
 * Every schema step of the app database, in order. Add one line per migration file; never
 * edit a migration that has shipped, add a new one.
 */
export const MIGRATIONS: Migration[] = [
  migration001Core,
  migration002Tasks,
  migration003Sync,
  migration004VcaRequests,
  migration005PauseReason,
  migration006StateCounts,
  migration007SecretChanged,
  migration008SameBytes,
  migration009TaskForTransfer,
  migration010StoredObjects,
  migration011RootReasonCode,
];
