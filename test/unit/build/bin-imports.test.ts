import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acorn from 'acorn';
import * as walk from 'acorn-walk';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module without types; moduleLoads is what the package check uses.
import { moduleLoads, packageName } from '../../../bin/package-check.mjs';

/**
 * The project's own scripts (bin/: npm start, the build, the release hook) load only Node's
 * built-ins and packages package.json declares: a package that is there only because npm
 * hoisted it from another one's dependencies (as @electron/rebuild was, from electron-builder,
 * needing Node ≥ 22.12 while engines says ≥ 20.19) can vanish or change under the project.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};
const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]);

describe('bin/ scripts', () => {
  const files = readdirSync(path.join(ROOT, 'bin')).filter((f) => /\.(m|c)?js$/.test(f));

  it.each(files)('%s loads only built-ins and declared packages', (file) => {
    const source = readFileSync(path.join(ROOT, 'bin', file), 'utf8');
    const { loads } = moduleLoads(source, { module: !file.endsWith('.cjs'), acorn, walk }) as {
      loads: Array<{ spec: string }>;
    };
    const undeclared = loads
      .map((l) => l.spec)
      .filter((s) => !s.startsWith('.') && !s.startsWith('/') && !isBuiltin(s))
      .map((s) => packageName(s) as string)
      .filter((n) => !declared.has(n));
    expect(undeclared).toEqual([]);
  });
});
