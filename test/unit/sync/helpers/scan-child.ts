// Scans the folder given as argv[2] and prints the results as one JSON line. Run as a child
// process by permission tests: root reads every folder, so a test running as root starts this
// without that right (test/helpers/unprivileged.ts).
import { PathFilter } from '../../../../src-main/sync/path-filter';
import { scanTree, type DirScan } from '../../../../src-main/sync/scanner';

const root = process.argv[2];
if (!root) throw new Error('usage: scan-child.ts <folder>');
const filter = new PathFilter({ ignore: [], useDefaultIgnores: true, includeOnly: [], includeHidden: false });
const out: DirScan[] = [];
for await (const d of scanTree({ root, filter, symlinks: 'skip' })) out.push(d);
process.stdout.write(`${JSON.stringify(out)}\n`);
