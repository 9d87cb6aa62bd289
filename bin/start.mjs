#!/usr/bin/env node
// `npm start`: builds what is stale, then opens the desktop app. Without the Electron
// runtime it tries Electron's install step; when that fails too it says so in one line and
// starts the headless door instead (same UI in a browser; the URL with its token is printed).
// So it does when Electron aborts at once because this system refuses its sandbox (Ubuntu's
// AppArmor), with the one command that fixes it.
// Arguments after `npm start --` go to the app (files to upload) or to `serve` (--port…).
// An app already running on the data folder is brought to the front instead (show-running.ts).
import { buildMain, buildRenderer, ROOT, staleReason } from './build-lib.mjs';
import { runElectron, sandboxAdvice } from './electron-launch.mjs';
import { ensureElectron, ensureElectronNative } from './electron-runtime.mjs';

const args = process.argv.slice(2);
if (staleReason('main')) await buildMain();
if (staleReason('renderer')) await buildRenderer();

// An app already runs on this data folder (the desktop app or serve, found through its local
// door): it is asked to show its window, the paths handed to it, instead of starting a second
// app that would fail on the queue lock.
const { main, showRunningApp } = await import('../dist/cli/cli.mjs');
const running = await showRunningApp(args);
if (running.kind === 'shown') {
  process.stdout.write('blocklift: already running: its window is brought to the front.\n');
  process.exit(0);
}
if (running.kind === 'headless') {
  process.stdout.write(
    `blocklift: already running headless (blocklift serve) on this data folder; open:\n  ${running.loginUrl}\n`,
  );
  process.exit(0);
}

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
  process.exitCode = await main([process.argv[0], 'blocklift', 'serve', ...args]);
}
