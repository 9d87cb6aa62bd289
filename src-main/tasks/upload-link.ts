/**
 * The link between an upload and the Fmgr task its policy's persistentOps started: the
 * service puts the task's id in the mkfile reply as `persistentId` (and a returnBody may
 * carry it as `$(persistentId)` under a name of its own, given as `field`). An empty or
 * missing value means the upload started no task.
 */
export function persistentIdOfUpload(mkfileBody: Record<string, unknown>, field = 'persistentId'): string | undefined {
  const v = mkfileBody[field];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}
