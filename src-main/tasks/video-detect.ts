/**
 * Video detection lives in sync/video.ts (one rule for watched roots and tasks; sync
 * cannot import tasks). Re-exported here for the tasks layer's callers.
 */
export { DEFAULT_VIDEO_EXTENSIONS, isVideo, parseExtensionList, type VideoDetectOptions } from '../sync/video';
