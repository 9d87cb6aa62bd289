/**
 * What a watch root tells its listeners (the CLI prints them, the service forwards them to
 * the UI). Defined once in shared/events.ts, because the renderer reads the same events.
 */
export type { WatchEvent as WatchRootEvent, WatchFileOutcome as FileOutcome, WatchRootState } from '../shared/events';
