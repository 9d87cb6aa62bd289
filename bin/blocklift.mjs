#!/usr/bin/env node
// The `blocklift` command. Runs the compiled bundle dist/cli/cli.mjs (built by `npm install`,
// `npm run build` and `npm start`) when it is current. When a source is newer than the
// bundle it rebuilds it first (esbuild, about a second) and says so on stderr; when it
// cannot rebuild (no esbuild: a production install), it runs the TypeScript sources through
// tsx's loader, with a note. So the command never runs a stale build.
import { staleReason } from './build-lib.mjs';

async function loadMain() {
  const why = staleReason('main');
  if (!why) return (await import('../dist/cli/cli.mjs')).main;
  try {
    process.stderr.write(`blocklift: rebuilding dist (${why})\n`);
    const { buildMain } = await import('./build-lib.mjs');
    await buildMain();
    return (await import('../dist/cli/cli.mjs')).main;
  } catch (e) {
    process.stderr.write(`blocklift: could not rebuild (${e?.message ?? e}); running the sources through tsx\n`);
    const { register } = await import('tsx/esm/api');
    register();
    return (await import('../src-main/cli/main.ts')).main;
  }
}

const main = await loadMain();
process.exitCode = await main(process.argv);
