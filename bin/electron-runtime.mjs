// Finds the Electron runtime binary, or tries Electron's own install step to get it.
// npm's allowScripts keeps electron's postinstall from running during `npm install` (on a
// machine with no route to the release host it would fail the whole install); `prepare`
// and `npm start` call `ensureElectron` instead, which never fails the caller.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './build-lib.mjs';
import { installNativeBuild, NATIVE, NATIVE_WITH_DEPS } from './native-rebuild.mjs';

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
    return { ok: false, reason: 'the Electron runtime was not downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD is set)' };
  const run = spawnSync(process.execPath, ['install.js'], { cwd: ELECTRON_DIR, encoding: 'utf8', timeout: 300_000 });
  const binary = electronBinary();
  if (binary) return { ok: true, binary };
  return {
    ok: false,
    reason: `the Electron runtime could not be downloaded (${failureLine(`${run.stderr ?? ''}\n${run.stdout ?? ''}`)})`,
  };
}

/**
 * Electron runs its own Node (another ABI) than the one `npm install` built better-sqlite3
 * for. This gives the Electron main bundle its own copy, in dist/electron/node_modules
 * (found first from dist/electron/main.js; the CLI in dist/cli/ keeps the Node copy),
 * built for this Electron by npm's own rebuild in a staging folder (bin/native-rebuild.mjs:
 * a prebuilt addon for that Electron, else a build against its headers; Node ≥ 20, no
 * @electron/rebuild) when it does not load as it is. { ok: true } or { ok: false, reason }.
 */
export async function ensureElectronNative(binary) {
  const dir = path.join(ROOT, 'dist', 'electron');
  const loads = () =>
    spawnSync(binary, ['-e', `new (require(${JSON.stringify(NATIVE)}))(':memory:').close()`], {
      cwd: dir,
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    }).status === 0;
  if (loads()) return { ok: true };
  const version = JSON.parse(readFileSync(path.join(ELECTRON_DIR, 'package.json'), 'utf8')).version;
  try {
    for (const m of NATIVE_WITH_DEPS)
      cpSync(path.join(ROOT, 'node_modules', m), path.join(dir, 'node_modules', m), {
        recursive: true,
        dereference: true,
      });
    const built = installNativeBuild({
      runtime: 'electron',
      target: version,
      destModuleDir: path.join(dir, 'node_modules', NATIVE),
    });
    if (!built.ok) throw new Error(built.reason);
  } catch (e) {
    return { ok: false, reason: `better-sqlite3 could not be built for Electron ${version}: ${e?.message ?? e}` };
  }
  return loads()
    ? { ok: true }
    : { ok: false, reason: `better-sqlite3 built for Electron ${version} still does not load` };
}
