// Builds better-sqlite3 (the one native module whose addon depends on the runtime's ABI;
// @parcel/watcher's prebuilt addons use Node-API and load in any runtime) for an Electron
// version, in a staging folder, never in the project's own node_modules: the CLI, `serve` and
// the tests keep loading the Node build there. Used by `npm start` (bin/electron-runtime.mjs,
// for the unpacked app in dist/electron/node_modules) and by a release (bin/after-pack.mjs, for
// the package's app.asar.unpacked).
//
// The build is npm's own, as Electron's documentation describes for native modules ("Using
// npm"): `npm rebuild` with npm_config_runtime=electron, _target, _arch and _disturl, so
// better-sqlite3's install step (prebuild-install, else node-gyp) fetches a prebuilt addon for
// that Electron or builds it against Electron's headers. It needs only npm and Node ≥ 20
// (no @electron/rebuild, which needs Node ≥ 22.12, and no package hoisted from another one).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The native module rebuilt per runtime, with the packages it loads its addon through. */
export const NATIVE = 'better-sqlite3';
export const NATIVE_WITH_DEPS = ['better-sqlite3', 'bindings', 'file-uri-to-path'];
/** The addon file, relative to the module's folder. */
export const ADDON = 'build/Release/better_sqlite3.node';

/** How to run npm: the npm that runs us (npm start), else the one next to this Node, else PATH's. */
function npmCommand() {
  const execPath = process.env.npm_execpath;
  if (execPath && /npm-cli\.c?js$/.test(execPath)) return [process.execPath, [execPath]];
  const beside = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (existsSync(beside)) return [process.execPath, [beside]];
  return [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
}

/**
 * The environment of `npm rebuild` for a runtime: Electron's (runtime 'electron', its headers
 * from electronjs.org) or, for the tests, Node's own (runtime 'node', the local headers).
 */
export function rebuildEnv({ runtime, target, arch = process.arch, env = process.env }) {
  const out = {
    ...env,
    npm_config_runtime: runtime,
    npm_config_target: target,
    npm_config_arch: arch,
    npm_config_target_arch: arch,
    // No audit, fund or update notices: this is a build step.
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  if (runtime === 'electron') {
    out.npm_config_disturl = 'https://electronjs.org/headers';
    // Electron's headers in a cache of their own, not mixed with Node's (Electron's docs).
    out.npm_config_devdir = path.join(os.homedir(), '.electron-gyp');
  }
  return out;
}

/**
 * Builds better-sqlite3 for `runtime`@`target` in a staging copy of the project's
 * node_modules/better-sqlite3 and returns { ok: true, addon } (the built .node file, inside
 * `stagingDir`) or { ok: false, reason }. The project's node_modules is only read.
 */
export function buildNative({ runtime, target, arch, stagingDir, projectDir = ROOT, timeoutMs = 600_000 }) {
  mkdirSync(path.join(stagingDir, 'node_modules'), { recursive: true });
  for (const m of NATIVE_WITH_DEPS)
    cpSync(path.join(projectDir, 'node_modules', m), path.join(stagingDir, 'node_modules', m), {
      recursive: true,
      dereference: true,
      // The old build's output would be taken for the new one if the build step failed silently.
      filter: (src) => !src.includes(`${path.sep}${NATIVE}${path.sep}build${path.sep}`),
    });
  const version = JSON.parse(
    readFileSync(path.join(projectDir, 'node_modules', NATIVE, 'package.json'), 'utf8'),
  ).version;
  writeFileSync(
    path.join(stagingDir, 'package.json'),
    JSON.stringify({ name: 'blocklift-native-staging', private: true, dependencies: { [NATIVE]: version } }),
  );
  const [cmd, pre] = npmCommand();
  const run = spawnSync(cmd, [...pre, 'rebuild', NATIVE, '--foreground-scripts'], {
    cwd: stagingDir,
    env: rebuildEnv({ runtime, target, arch }),
    encoding: 'utf8',
    timeout: timeoutMs,
    shell: process.platform === 'win32' && cmd.endsWith('.cmd'),
  });
  const addon = path.join(stagingDir, 'node_modules', NATIVE, ADDON);
  if (run.status !== 0 || !existsSync(addon)) {
    const tail = `${run.stderr ?? ''}\n${run.stdout ?? ''}${run.error ? `\n${run.error.message}` : ''}`
      .trim()
      .split('\n')
      .slice(-3)
      .join(' / ');
    return {
      ok: false,
      reason: `npm rebuild ${NATIVE} for ${runtime} ${target} failed: ${tail || `exit ${run.status}`}`,
    };
  }
  return { ok: true, addon };
}

/**
 * Puts better-sqlite3 built for `runtime`@`target` into `destModuleDir` (a packed
 * node_modules/better-sqlite3): only its addon file is replaced. { ok } or { ok: false, reason }.
 */
export function installNativeBuild({ destModuleDir, ...opts }) {
  const stagingDir = mkdtempSync(path.join(os.tmpdir(), 'blocklift-native-'));
  try {
    const built = buildNative({ ...opts, stagingDir });
    if (!built.ok) return built;
    mkdirSync(path.dirname(path.join(destModuleDir, ADDON)), { recursive: true });
    cpSync(built.addon, path.join(destModuleDir, ADDON));
    return { ok: true };
  } finally {
    rmSync(stagingDir, { recursive: true, force: true });
  }
}
