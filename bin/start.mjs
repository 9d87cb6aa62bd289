#!/usr/bin/env node
// `npm start`: builds what is stale, then opens the desktop app. Without the Electron
// runtime it tries Electron's install step; when that fails too it says so in one line and
// starts the headless door instead (same UI in a browser; the URL with its token is printed).
// So it does when Electron aborts at once because this system refuses its sandbox (Ubuntu's
// AppArmor), with the one command that fixes it.
// Arguments after `npm start --` go to the app (files to upload) or to `serve` (--port…).
import { buildMain, buildRenderer, ROOT, staleReason } from './build-lib.mjs';
import { runElectron, sandboxAdvice } from './electron-launch.mjs';
import { ensureElectron, ensureElectronNative } from './electron-runtime.mjs';

const args = process.argv.slice(2);
if (staleReason('main')) await buildMain();
if (staleReason('renderer')) await buildRenderer();

let runtime = ensureElectron();
if (runtime.ok) {
  const native = await ensureElectronNative(runtime.binary);
  if (!native.ok) runtime = { ok: false, reason: native.reason };
}
if (runtime.ok) {
  const ended = await runElectron(runtime.binary, [ROOT, ...args]);
  if (ended.sandboxRefused) runtime = { ok: false, reason: sandboxAdvice(runtime.binary) };
  else process.exit(ended.code ?? (ended.signal ? 1 : 0));
}
if (!runtime.ok) {
  process.stderr.write(
    `blocklift: no desktop window: ${runtime.reason}; starting the headless door instead (open its URL in a browser).\n`,
  );
  const { main } = await import('../dist/cli/cli.mjs');
  process.exitCode = await main([process.argv[0], 'blocklift', 'serve', ...args]);
}
