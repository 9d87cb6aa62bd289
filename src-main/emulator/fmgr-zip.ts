import { open, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { crc32, deflateRaw } from 'node:zlib';

/**
 * A minimal ZIP writer for the Fmgr `compress` operation: one file, entries deflated (or
 * stored when deflating their first 256 KiB saves under 5%, or deflate does not help), UTF-8 names, no ZIP64. Output opens with `unzip`.
 * Each entry is read whole, so the total input is capped (MAX_ZIP_INPUT_BYTES).
 */

export const MAX_ZIP_INPUT_BYTES = 1024 * 1024 * 1024;
const MAX_ZIP_ENTRIES = 65_535;
const deflateRawAsync = promisify(deflateRaw);
const SAMPLE_BYTES = 256 * 1024;

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

/** DOS date and time fields of a ZIP header (local time, 2-second resolution, 1980 or later). */
export function dosDateTime(ms: number): { time: number; date: number } {
  const d = new Date(Math.max(ms, new Date(1980, 0, 1).getTime()));
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/** Writes `entries` as a ZIP archive to `outFile` (created or truncated). Throws ZipLimitError past the limits. */
export async function writeZip(outFile: string, entries: readonly ZipEntrySource[]): Promise<void> {
  if (entries.length > MAX_ZIP_ENTRIES) throw new ZipLimitError(`a zip holds at most ${MAX_ZIP_ENTRIES} entries`);
  const total = entries.reduce((s, e) => s + e.size, 0);
  if (total > MAX_ZIP_INPUT_BYTES)
    throw new ZipLimitError(`compress takes at most ${MAX_ZIP_INPUT_BYTES} bytes of input, not ${total}`);
  const fh = await open(outFile, 'w');
  try {
    const central: Buffer[] = [];
    let offset = 0;
    const write = async (buf: Buffer) => {
      await fh.write(buf, 0, buf.length, offset);
      offset += buf.length;
    };
    for (const e of entries) {
      const data = await readFile(e.path);
      const crc = crc32(data);
      // Media (the usual content) does not compress: a sample decides before deflating it all.
      const worthIt =
        data.length <= SAMPLE_BYTES ||
        (await deflateRawAsync(data.subarray(0, SAMPLE_BYTES))).length < SAMPLE_BYTES * 0.95;
      const deflated = worthIt ? await deflateRawAsync(data) : data;
      const stored = deflated.length >= data.length;
      const payload = stored ? data : deflated;
      const method = stored ? 0 : 8;
      const name = Buffer.from(e.name.replace(/^\/+/, ''), 'utf8');
      const { time, date } = dosDateTime(e.mtimeMs);
      const headerOffset = offset;
      if (headerOffset + 30 + name.length + payload.length > 0xffff_ffff)
        throw new ZipLimitError('the zip would pass 4 GiB (ZIP64 is not written)');

      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4); // version needed
      local.writeUInt16LE(0x0800, 6); // flags: UTF-8 names
      local.writeUInt16LE(method, 8);
      local.writeUInt16LE(time, 10);
      local.writeUInt16LE(date, 12);
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(payload.length, 18);
      local.writeUInt32LE(data.length, 22);
      local.writeUInt16LE(name.length, 26);
      local.writeUInt16LE(0, 28); // extra length
      await write(Buffer.concat([local, name]));
      await write(payload);

      const cd = Buffer.alloc(46);
      cd.writeUInt32LE(0x02014b50, 0);
      cd.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0
      cd.writeUInt16LE(20, 6);
      cd.writeUInt16LE(0x0800, 8);
      cd.writeUInt16LE(method, 10);
      cd.writeUInt16LE(time, 12);
      cd.writeUInt16LE(date, 14);
      cd.writeUInt32LE(crc, 16);
      cd.writeUInt32LE(payload.length, 20);
      cd.writeUInt32LE(data.length, 24);
      cd.writeUInt16LE(name.length, 28);
      // extra length, comment length, disk number, internal attributes: 0
      cd.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: regular file, rw-r--r--
      cd.writeUInt32LE(headerOffset, 42);
      central.push(Buffer.concat([cd, name]));
    }
    const cdOffset = offset;
    const cdBytes = Buffer.concat(central);
    await write(cdBytes);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(entries.length, 8);
    end.writeUInt16LE(entries.length, 10);
    end.writeUInt32LE(cdBytes.length, 12);
    end.writeUInt32LE(cdOffset, 16);
    await write(end);
  } finally {
    await fh.close();
  }
}
