// Reads the file given as argv[2] with the engine's SmallFileReader and prints how it ended as
// one JSON line ({ ok } or { code, message }). Run as a child process by the permission test:
// root reads every file, so a test running as root starts this without that right
// (test/helpers/unprivileged.ts).
import { TransferFailure } from '../../../../src-main/engine/errors';
import { SmallFileReader } from '../../../../src-main/engine/small-reader';

const file = process.argv[2];
if (!file) throw new Error('usage: read-child.ts <file>');
const reader = new SmallFileReader();
try {
  await reader.read(file, 256 * 1024);
  process.stdout.write(`${JSON.stringify({ ok: true })}\n`);
} catch (e) {
  if (!(e instanceof TransferFailure)) throw e;
  process.stdout.write(`${JSON.stringify({ code: e.code, message: e.message })}\n`);
} finally {
  await reader.close();
}
