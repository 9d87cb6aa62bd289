import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';

const MiB = 1024 * 1024;

/**
 * Writes `size` bytes: a random 16 MiB pattern, each copy stamped with its index (no two
 * blocks alike). The file is on the disk when this returns (fsync), as a file a person
 * uploads usually is: the uploader's direct reads (engine/file-source.ts) would otherwise
 * write the bench's own fresh pages back first, on the uploader's CPU.
 */
export async function makeFile(file: string, size: number): Promise<void> {
  const pattern = randomBytes(16 * MiB);
  const fh = await open(file, 'w');
  try {
    for (let pos = 0, i = 0; pos < size; pos += pattern.length, i++) {
      pattern.writeUInt32LE(i, 0);
      await fh.write(pattern, 0, Math.min(pattern.length, size - pos), pos);
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
}
