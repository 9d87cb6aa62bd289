// Module resolution hooks for register.mjs: `electron` is the stand-in; packages a test
// refuses fail as missing modules.
import { isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';

let config;

export async function initialize(data) {
  config = data;
}

const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
const isBare = (spec) => !spec.startsWith('.') && !spec.startsWith('/') && !/^[a-z]+:/i.test(spec);

/** Why `spec` loaded from `parentUrl` is refused, or null. */
export function refusal(data, spec, parentUrl) {
  if (!isBare(spec) || isBuiltin(spec) || spec === 'electron') return null;
  const name = packageName(spec);
  if (data.block.includes(name)) return `${name} must not load at the app's start`;
  if (data.onlyDependencies && parentUrl?.startsWith('file:')) {
    const parent = fileURLToPath(parentUrl);
    const fromApp = parent.startsWith(data.appPath) && !parent.includes(`node_modules`);
    if (fromApp && !data.onlyDependencies.includes(name))
      return `${name} is not in package.json dependencies, so a release does not pack it`;
  }
  return null;
}

export async function resolve(spec, context, next) {
  if (spec === 'electron') return { url: config.standIn, shortCircuit: true };
  const why = refusal(config, spec, context.parentURL);
  if (why) {
    const e = new Error(`Cannot find package '${spec}' imported from ${context.parentURL} (${why})`);
    e.code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  }
  return next(spec, context);
}
