#!/usr/bin/env node
// `prepare` (runs at the end of `npm install` and `npm ci`): builds dist/ and fetches the
// Electron runtime when it is missing. A machine that cannot fetch it gets one line and a
// successful install: `npm start` then falls back to the headless door. An install without
// the dev dependencies (no bundler) keeps the dist/ it has and says so.
import { buildMain, buildRenderer } from './build-lib.mjs';
import { ensureElectron } from './electron-runtime.mjs';

try {
  await import('esbuild');
  await buildMain();
  await buildRenderer();
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
  process.stderr.write(`blocklift: no bundler installed (${e.message.split('\n')[0]}); dist/ was not rebuilt.\n`);
}
const runtime = ensureElectron();
if (!runtime.ok) process.stderr.write(`blocklift: ${runtime.reason}; npm start will use the headless door.\n`);
