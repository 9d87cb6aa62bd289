// `node --import <this file> dist/electron/main.js`: runs the built main process under plain
// Node with the stand-in `electron` module (electron.mjs) resolvable, as the Electron runtime
// provides its own. Environment:
//   STANDIN_BLOCK   comma-separated packages that must not load (their import fails as a
//                   missing module): what a test says the app must not load at start
//   STANDIN_ONLY_DEPENDENCIES  '1': a package the app's own files (not node_modules) load must
//                   be in package.json `dependencies` of STANDIN_APP_PATH (what a release packs)
// A refused load fails the way a module absent from the package would (ERR_MODULE_NOT_FOUND
// from import, MODULE_NOT_FOUND from require).
import Module, { register } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const appPath = process.env.STANDIN_APP_PATH ?? process.cwd();
const block = (process.env.STANDIN_BLOCK ?? '').split(',').filter(Boolean);
const onlyDependencies =
  process.env.STANDIN_ONLY_DEPENDENCIES === '1'
    ? Object.keys(JSON.parse(readFileSync(path.join(appPath, 'package.json'), 'utf8')).dependencies ?? {})
    : null;
const data = { standIn: new URL('./electron.mjs', import.meta.url).href, block, onlyDependencies, appPath };

register('./hooks.mjs', import.meta.url, { data });

// require() (esbuild's __require, createRequire) does not go through the ESM hooks on Node 20.
const { refusal } = await import('./hooks.mjs');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const why = refusal(data, request, parent?.filename ? `file://${parent.filename}` : undefined);
  if (why) {
    const e = new Error(`Cannot find module '${request}' (${why})`);
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  }
  return resolveFilename.call(this, request, parent, ...rest);
};
