#!/usr/bin/env node
// Builds dist/ (see build-lib.mjs). Usage:
//   node bin/build.mjs              build everything
//   node bin/build.mjs --if-stale   build only the parts older than their sources
//   node bin/build.mjs --main       only the main-process bundles
//   node bin/build.mjs --check      exit 1 (saying why) when a part is stale; builds nothing
import { buildMain, buildRenderer, staleReason } from './build-lib.mjs';

const args = new Set(process.argv.slice(2));
const parts = args.has('--main') ? ['main'] : ['main', 'renderer'];
const build = { main: buildMain, renderer: buildRenderer };

if (args.has('--check')) {
  const stale = parts.map((p) => [p, staleReason(p)]).filter(([, why]) => why);
  for (const [p, why] of stale) process.stderr.write(`blocklift build: ${p} is stale (${why}); run npm run build\n`);
  process.exit(stale.length ? 1 : 0);
}
for (const part of parts) {
  const why = args.has('--if-stale') ? staleReason(part) : 'asked';
  if (!why) continue;
  if (args.has('--if-stale')) process.stderr.write(`blocklift build: ${part} (${why})\n`);
  await build[part]();
}
