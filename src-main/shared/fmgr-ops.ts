/**
 * The eight Fmgr operations as typed descriptions (types and constants only; protocol/fops.ts
 * turns them into the fops grammar and back).
 */
export type FmgrOp =
  | { op: 'fetch'; fetchURL: string; bucket: string; key?: string; prefix?: string; md5?: string }
  | { op: 'copy' | 'move'; srcBucket: string; srcKey: string; bucket: string; key?: string; prefix?: string }
  | { op: 'delete'; bucket: string; key: string }
  | { op: 'deletePrefix'; bucket: string; prefix: string; output?: string }
  | { op: 'deletem3u8'; bucket: string; key: string; deletets?: 0 | 1 }
  | { op: 'setdeadline'; bucket: string; prefix?: string; deadline: number }
  | { op: 'compress'; bucket: string; keys: string[]; saveAsBucket: string; saveAsKey: string };

export type FmgrOpName = FmgrOp['op'];

export const FMGR_OPS: readonly FmgrOpName[] = [
  'fetch',
  'copy',
  'move',
  'delete',
  'deletePrefix',
  'deletem3u8',
  'setdeadline',
  'compress',
];
