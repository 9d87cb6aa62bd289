import path from 'node:path';
import { EMULATOR_NODE_FLAGS } from '../../src-main/emulator/node-flags';

/** The keys and bucket of the emulator the benchmark's uploaders talk to. */
export const AK = 'bench-ak';
export const SK = 'bench-sk';
export const BUCKET = 'bench';

/**
 * node's arguments for `blocklift emulator` on a random loopback port, data in `dataDir`, its
 * URLs as one JSON line; with the V8 flags the app gives its embedded emulator
 * (emulator/node-flags.ts), so the bench measures the service as the app runs it.
 */
export function emulatorArgs(root: string, dataDir: string): string[] {
  return [
    ...EMULATOR_NODE_FLAGS,
    path.join(root, 'bin/blocklift.mjs'),
    'emulator',
    '--port',
    '0',
    '--data',
    dataDir,
    '--ak',
    AK,
    '--sk',
    SK,
    '--bucket',
    BUCKET,
    '--json',
  ];
}
