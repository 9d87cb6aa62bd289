import { writeZip as writeZipArchive } from '../base/zip';

/**
 * The archive of the Fmgr `compress` operation: base/zip.ts (yazl) over the source objects'
 * files, streamed, never read whole; ZIP64 where needed. The emulator keeps one limit of its
 * own: at most 1 GiB of input, like its form upload, so one task cannot fill a test machine's
 * disk or keep it busy for long.
 */

export const MAX_ZIP_INPUT_BYTES = 1024 * 1024 * 1024;

export class ZipLimitError extends Error {
  override readonly name = 'ZipLimitError';
}

export interface ZipEntrySource {
  /** Name inside the archive (UTF-8; leading slashes are dropped). */
  name: string;
  /** File holding the entry's bytes. */
  path: string;
  size: number;
  /** Modification time, Unix ms. */
  mtimeMs: number;
}

/** Writes `entries` as a ZIP archive to `outFile` (created or truncated). Throws ZipLimitError past the limit. */
export async function writeZip(outFile: string, entries: readonly ZipEntrySource[]): Promise<void> {
  const total = entries.reduce((s, e) => s + e.size, 0);
  if (total > MAX_ZIP_INPUT_BYTES)
    throw new ZipLimitError(`compress takes at most ${MAX_ZIP_INPUT_BYTES} bytes of input, not ${total}`);
  await writeZipArchive(
    outFile,
    entries.map((e) => ({ name: e.name, path: e.path, mtime: new Date(e.mtimeMs) })),
  );
}
