#!/usr/bin/env node
// `prepare` (runs at the end of `npm install` and `npm ci`): builds dist/ and fetches the
// Electron runtime when it is missing. A machine that cannot fetch it gets one line and a
// successful install: `npm start` then falls back to the headless door.
import { buildMain, buildRenderer } from './build-lib.mjs';
import { ensureElectron } from './electron-runtime.mjs';

await buildMain();
await buildRenderer();
const runtime = ensureElectron();
if (!runtime.ok) process.stderr.write(`blocklift: ${runtime.reason}; npm start will use the headless door.\n`);
