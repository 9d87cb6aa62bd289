/**
 * Browser drops through the headless door's staging routes (wire.ts): open a batch, PUT each
 * file's bytes under its relative path, commit the batch with the target. Same origin, so the
 * door's access cookie goes along. Every failure comes back as a Result, like a verb's.
 */
import type { AddTransfersResult, Result, TransferTarget } from '../../src-main/shared/contract';
import { DOOR_STAGE_COMMIT_PATH, DOOR_STAGE_PATH } from '../../src-main/shared/wire';
import type { StagedFile } from './bridge';

async function json<T>(res: Response): Promise<Result<T>> {
  try {
    return (await res.json()) as Result<T>;
  } catch {
    return {
      ok: false,
      error: { code: 'internal', message: `The door answered ${res.status}.`, params: { detail: String(res.status) } },
    };
  }
}

export async function stageFiles(
  base: string,
  files: StagedFile[],
  target: TransferTarget,
  onProgress?: (sent: number) => void,
): Promise<Result<AddTransfersResult>> {
  const opened = await json<{ batch: string }>(await fetch(`${base}${DOOR_STAGE_PATH}`, { method: 'POST' }));
  if (!opened.ok) return opened;
  const batch = opened.value.batch;
  let sent = 0;
  for (const { file, relPath } of files) {
    const encoded = relPath.split('/').map(encodeURIComponent).join('/');
    const put = await json<{ staged: true }>(
      await fetch(`${base}${DOOR_STAGE_PATH}/${batch}/${encoded}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream' },
        body: file,
      }),
    );
    if (!put.ok) return put;
    onProgress?.(++sent);
  }
  return json<AddTransfersResult>(
    await fetch(`${base}${DOOR_STAGE_COMMIT_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ batch, target }),
    }),
  );
}
