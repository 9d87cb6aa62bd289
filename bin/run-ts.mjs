#!/usr/bin/env node
// Runs one TypeScript entry file under tsx's loader: `node bin/run-ts.mjs file.ts args...`.
// Used for benchmarks and for child processes started by tests.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

register();
const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: node bin/run-ts.mjs <file.ts> [args...]\n');
  process.exit(2);
}
process.argv.splice(1, 1);
await import(pathToFileURL(path.resolve(entry)).href);
