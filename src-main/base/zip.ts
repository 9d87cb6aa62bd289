import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** Path inside the archive, with '/' separators. */
  name: string;
  data: Buffer;
}

/**
 * A zip archive (PKWARE APPNOTE, no zip64: under 4 GiB and 65,535 entries) of whole
 * in-memory entries, each deflated (or stored when deflating does not shrink it), names in
 * UTF-8 (flag bit 11), times at `date` in local DOS time. Throws RangeError past the limits.
 */
export function zipBuffer(entries: readonly ZipEntry[], date = new Date()): Buffer {
  if (entries.length > 0xffff) throw new RangeError('too many entries for a zip without zip64');
  const time = (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1);
  const day = ((Math.max(date.getFullYear(), 1980) - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate();
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const deflated = deflateRawSync(e.data);
    const stored = deflated.length >= e.data.length;
    const body = stored ? e.data : deflated;
    const crc = crc32(e.data);
    if (offset + 30 + name.length + body.length > 0xffffffff) throw new RangeError('zip larger than 4 GiB');
    const common = (b: Buffer, at: number) => {
      b.writeUInt16LE(20, at); // version needed: 2.0
      b.writeUInt16LE(0x0800, at + 2); // UTF-8 names
      b.writeUInt16LE(stored ? 0 : 8, at + 4);
      b.writeUInt16LE(time, at + 6);
      b.writeUInt16LE(day, at + 8);
      b.writeUInt32LE(crc, at + 10);
      b.writeUInt32LE(body.length, at + 14);
      b.writeUInt32LE(e.data.length, at + 18);
      b.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by: Unix, 2.0
    common(central, 6);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular 0644 file
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}
