#!/usr/bin/env node
// The `blocklift` command. Runs the TypeScript sources through tsx's loader so that
// `npm install` is the only set-up step and the command never runs a stale build.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src-main/cli/main.ts');
process.exitCode = await main(process.argv);
