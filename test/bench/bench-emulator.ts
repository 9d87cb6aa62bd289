import path from 'node:path';

/** The keys and bucket of the emulator the benchmark's uploaders talk to. */
export const AK = 'bench-ak';
export const SK = 'bench-sk';
export const BUCKET = 'bench';

/** `blocklift emulator` on a random loopback port, data in `dataDir`, its URLs as one JSON line. */
export function emulatorArgs(root: string, dataDir: string): string[] {
  return [
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
