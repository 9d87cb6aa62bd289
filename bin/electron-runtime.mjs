// Finds the Electron runtime binary, or tries Electron's own install step to get it.
// npm's allowScripts keeps electron's postinstall from running during `npm install` (on a
// machine with no route to the release host it would fail the whole install); `prepare`
// and `npm start` call `ensureElectron` instead, which never fails the caller.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './build-lib.mjs';

const ELECTRON_DIR = path.join(ROOT, 'node_modules', 'electron');

/** The runtime's executable, or null when it is not installed. */
export function electronBinary() {
  const pathFile = path.join(ELECTRON_DIR, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = path.join(ELECTRON_DIR, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

/** The line of an install failure worth showing (the error, not its stack). */
function failureLine(output) {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at '));
  return lines.find((l) => /error/i.test(l)) ?? lines[lines.length - 1] ?? 'no output';
}

/**
 * { ok: true, binary } when the runtime is there (installing it first if needed),
 * else { ok: false, reason } with one line saying why.
 */
export function ensureElectron() {
  const found = electronBinary();
  if (found) return { ok: true, binary: found };
  if (!existsSync(path.join(ELECTRON_DIR, 'install.js')))
    return { ok: false, reason: 'the electron package is not installed' };
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD)
    return { ok: false, reason: 'ELECTRON_SKIP_BINARY_DOWNLOAD is set, so its download was skipped' };
  const run = spawnSync(process.execPath, ['install.js'], { cwd: ELECTRON_DIR, encoding: 'utf8', timeout: 300_000 });
  const binary = electronBinary();
  if (binary) return { ok: true, binary };
  return { ok: false, reason: `its download failed: ${failureLine(`${run.stderr ?? ''}\n${run.stdout ?? ''}`)}` };
}
