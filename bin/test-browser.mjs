#!/usr/bin/env node
// What the UI tests, the browser-SDK test and the bench's UI section need beyond npm: a
// Chromium (or Chrome) to drive with playwright-core, and on Linux a font with Chinese glyphs
// (the zh-CN screens are measured and photographed). `npm test` runs this first:
//   - found (CHROMIUM_PATH, else a usual install place or the PATH) and a CJK font present: ok;
//   - missing, on Debian as root: installs Debian's `chromium` and `fonts-wqy-microhei` with
//     apt-get (after `apt-get update`);
//   - missing elsewhere: one line saying what to install, exit 1, before any test runs.
// `node bin/test-browser.mjs --check` only reports (exit 1 when something is missing).
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGES = { chromium: 'chromium', font: 'fonts-wqy-microhei' };

/** Places browsers are usually installed, per platform, after CHROMIUM_PATH and before the PATH. */
function usualPlaces() {
  if (process.platform === 'darwin')
    return [
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    ];
  if (process.platform === 'win32') {
    const roots = [process.env.PROGRAMFILES, process.env['PROGRAMFILES(X86)'], process.env.LOCALAPPDATA];
    return roots.filter(Boolean).map((r) => path.join(r, 'Google/Chrome/Application/chrome.exe'));
  }
  return ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome-stable', '/usr/bin/google-chrome'];
}

const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome', 'chrome'];

function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/**
 * The Chromium the tests use: `{ path }`, or `{ missing }` with one line saying what to do.
 * CHROMIUM_PATH, when set, is the only candidate (a wrong one is an error, not a fallback).
 */
export function findChromium() {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) {
    return executable(chosen)
      ? { path: chosen }
      : { missing: `CHROMIUM_PATH=${chosen} is not an executable file: point it at a Chromium or Chrome binary` };
  }
  for (const file of usualPlaces()) if (executable(file)) return { path: file };
  for (const name of PATH_NAMES) {
    const found = onPath(name);
    if (found) return { path: found };
  }
  return {
    missing:
      'no Chromium or Chrome found: install one (Debian/Ubuntu: apt-get install chromium) or set CHROMIUM_PATH to its binary',
  };
}

/** The Chromium path for a test, or an error carrying the one line of findChromium(). */
export function chromiumPath() {
  const found = findChromium();
  if ('path' in found) return found.path;
  throw new Error(`${found.missing} (npm test installs it itself on Debian as root)`);
}

/** Linux only: is a font with Chinese glyphs installed (fontconfig)? Other systems ship one. */
export function hasCjkFont() {
  if (process.platform !== 'linux') return true;
  const r = spawnSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '';
}

function debianRoot() {
  return (
    process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/etc/debian_version') && !!onPath('apt-get')
  );
}

/** What is missing, as Debian package names. */
function missingPackages() {
  const out = [];
  if ('missing' in findChromium()) out.push(PACKAGES.chromium);
  if (!hasCjkFont()) out.push(PACKAGES.font);
  return out;
}

/**
 * Makes sure the browser and font are there: `{ ok: true, chromium }`, or `{ ok: false, reason }`
 * (one line). Installs with apt on Debian as root unless `install` is false.
 */
export function ensureTestBrowser({ install = true, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  let missing = missingPackages();
  if (missing.length && install && debianRoot() && !process.env.CHROMIUM_PATH) {
    log(`blocklift: installing ${missing.join(' and ')} with apt-get (the UI tests need them)…`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      execFileSync('apt-get', ['update', '-qq'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      execFileSync('apt-get', ['install', '-y', '-qq', ...missing], {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (e) {
      const why = String(e.stderr ?? e.message)
        .trim()
        .split('\n')
        .pop();
      return { ok: false, reason: `apt-get could not install ${missing.join(' and ')}: ${why}` };
    }
    missing = missingPackages();
  }
  const found = findChromium();
  if ('missing' in found) return { ok: false, reason: found.missing };
  if (missing.includes(PACKAGES.font))
    return {
      ok: false,
      reason: 'no font with Chinese glyphs: install one (Debian/Ubuntu: apt-get install fonts-wqy-microhei)',
    };
  return { ok: true, chromium: found.path };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = ensureTestBrowser({ install: !process.argv.includes('--check') });
  if (!r.ok) {
    process.stderr.write(`blocklift: the tests cannot run: ${r.reason}\n`);
    process.exit(1);
  }
}
