import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { deflateRawSync } from 'node:zlib';
import { ZipFile } from 'yazl';

/**
 * ZIP archives, written by yazl (a well-kept streaming writer; the measurements that chose it
 * are in README.md): entries stream from their files, never read whole; ZIP64 where sizes,
 * offsets or the number of entries need it; UTF-8 names; regular 0644 files. An entry is
 * deflated unless deflating its first 256 KiB saves under 5% (media, the usual content, does
 * not compress: the sample decides before deflating it all), and then stored.
 */

/** One entry: its bytes in memory or in a file, and its modification time. */
export type ZipEntry = {
  /** Name inside the archive, '/' separators (leading slashes are dropped). */
  name: string;
  mtime: Date;
} & ({ data: Buffer } | { path: string });

export interface WriteZipOptions {
  /** ZIP64 records even where not needed (tests of readers). */
  forceZip64?: boolean;
}

const SAMPLE_BYTES = 256 * 1024;

/** Whether deflating is worth it: the first 256 KiB shrink by at least 5%. */
function worthDeflating(sample: Buffer): boolean {
  return sample.length > 0 && deflateRawSync(sample).length < sample.length * 0.95;
}

async function fileSample(file: string): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(SAMPLE_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SAMPLE_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/**
 * Writes `entries`, in order, as a ZIP archive to `outFile` (created or truncated; `mode`
 * when created). Resolves with the archive's size once the file is closed.
 */
export async function writeZip(
  outFile: string,
  entries: readonly ZipEntry[],
  opts: WriteZipOptions & { mode?: number } = {},
): Promise<{ bytes: number }> {
  const zip = new ZipFile();
  const out = createWriteStream(outFile, { mode: opts.mode ?? 0o666 });
  const closed = once(out, 'close');
  // An error of the archive (a file that vanished or changed size) ends the output too.
  const failed = new Promise<never>((_, reject) => {
    zip.once('error', reject);
    zip.outputStream.once('error', reject);
    out.once('error', reject);
  });
  failed.catch(() => undefined);
  zip.outputStream.pipe(out);
  try {
    for (const e of entries) {
      const name = e.name.replace(/^\/+/, '');
      const sample = 'data' in e ? e.data.subarray(0, SAMPLE_BYTES) : await fileSample(e.path);
      const options = {
        mtime: e.mtime,
        mode: 0o100644,
        compress: worthDeflating(sample),
        forceZip64Format: opts.forceZip64 ?? false,
      };
      if ('data' in e) zip.addBuffer(e.data, name, options);
      else zip.addFile(e.path, name, options);
    }
    zip.end({ forceZip64Format: opts.forceZip64 ?? false, comment: '' });
    await Promise.race([closed, failed]);
  } catch (e) {
    out.destroy();
    throw e;
  }
  return { bytes: out.bytesWritten };
}
