import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AppServiceError } from '../service/api/errors';
import type { DoorCapabilities } from '../service/app-service';
import { failure } from '../service/door-backend';
import type { FolderListing, Result } from '../shared/contract';
import { DOOR_BROWSE_PATH } from '../shared/wire';

/** Entries listed per folder at most (folders first, then files, by name). */
const MAX_ENTRIES = 2000;

/**
 * Lists one folder for the "add by path" browser. The folder (after resolving links) must
 * be `top` or inside it; anything else is 'path-not-found' without saying whether it exists.
 * Hidden entries are listed too (a watched folder may be one); unreadable entries are left out.
 */
export async function listFolder(top: string, wanted: string | undefined): Promise<Result<FolderListing>> {
  const realTop = await realpath(top);
  const asked = wanted ? path.resolve(realTop, wanted) : realTop;
  let real: string;
  try {
    real = await realpath(asked);
    if (!(await stat(real)).isDirectory()) throw new Error('not a folder');
  } catch {
    return failure('path-not-found', `${asked} does not exist.`, { path: asked });
  }
  if (real !== realTop && !real.startsWith(realTop + path.sep))
    return failure('path-not-found', `${asked} does not exist.`, { path: asked });
  let dirents: Dirent[];
  try {
    dirents = await readdir(real, { withFileTypes: true });
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? 'error';
    return failure('path-unreadable', `${real} cannot be read: ${reason}`, { path: real, reason });
  }
  const entries: FolderListing['entries'] = [];
  for (const d of dirents.slice(0, MAX_ENTRIES)) {
    const p = path.join(real, d.name);
    const s = await stat(p).catch(() => undefined);
    if (!s) continue;
    if (s.isDirectory()) entries.push({ name: d.name, path: p, kind: 'folder', size: null });
    else if (s.isFile()) entries.push({ name: d.name, path: p, kind: 'file', size: s.size });
  }
  entries.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'folder' ? -1 : 1));
  return { ok: true, value: { path: real, parent: real === realTop ? null : path.dirname(real), entries } };
}

/**
 * The headless door's `app.chooseFolder` (DoorCapabilities): the listing of the folder asked
 * for, `top` when none, for the screen's own folder browser; the same rules as the route.
 */
export function browsingFolderChooser(top: string): NonNullable<DoorCapabilities['chooseFolder']> {
  return async (start) => {
    const r = await listFolder(top, start);
    if (!r.ok) throw new AppServiceError(r.error.code, r.error.params, r.error.message);
    return { kind: 'listing', listing: r.value };
  };
}

export function registerBrowseRoute(app: FastifyInstance, top: string): void {
  app.post(DOOR_BROWSE_PATH, async (req) => {
    const wanted = (req.body as { path?: unknown } | undefined)?.path;
    return listFolder(top, typeof wanted === 'string' && wanted !== '' ? wanted : undefined);
  });
}
