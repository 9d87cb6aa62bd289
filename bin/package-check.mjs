#!/usr/bin/env node
// `npm run package:check`: builds the unpacked desktop package the way a release does
// (electron-builder, electron-builder.yml, `--dir --linux`) into a temporary folder, and
// proves from the package's own files that it can run:
//   - every module that the main process (package.json `main`), the preload and the CLI
//     (dist/cli/cli.mjs) load at run time (static imports, `import()` and `require` with a
//     literal name, found by parsing the packed files with acorn) resolves inside the package,
//     from app.asar or app.asar.unpacked, the way Node resolves it (node_modules folders
//     upwards), and so, recursively, does every dependency of each packed package;
//   - every module that dist/ loads is declared in package.json `dependencies` (a
//     devDependency is never packed; one that happens to be packed as another package's
//     dependency is not a promise);
//   - native addons (`.node` files: better-sqlite3, @parcel/watcher's platform package) are
//     in the unpacked part;
//   - nothing is packed that nothing loads: a `dependencies` entry that esbuild or Vite
//     already inlined into dist/ (a build input, so a devDependency) would be packed twice.
// It prints the package's size and what it holds. Exit 0 when the package holds what it
// needs, 1 (with the list of what is wrong and why) when not.
//
// Differences from a release build, forced by this machine: the Electron runtime cannot be
// downloaded, so `electronDist` is a stand-in folder made here (an `electron` file, renamed
// to the app's executable, and the resources/ and locales/ folders); native modules are not
// rebuilt for Electron (the release's `afterPack`, bin/after-pack.mjs, is left out: it needs
// that Electron's headers or prebuilt addon). Nothing is downloaded.
//
// Usage: node bin/package-check.mjs [--project DIR] [--keep]
//   --project DIR  check the project in DIR instead of this one (the tests pass a copy);
//                  its dist/ must be built (this project's dist is built when stale)
//   --keep         leave the temporary output folder and print its path
//   --app DIR      check the package already built in DIR (a --keep folder's out/linux-unpacked)
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');

/** Entry points besides package.json `main`, as packed paths. */
const PRELOAD = 'dist/electron/preload.cjs';
const CLI = 'dist/cli/cli.mjs';
/** The embedded emulator's worker thread or child process (emulator/host.ts), one per bundle. */
const EMULATOR_HOSTS = ['dist/electron/emulator-host.js', 'dist/cli/emulator-host.mjs'];
/** Provided by the runtime, never packed. */
const RUNTIME_PROVIDED = new Set(['electron']);

const posix = path.posix;

/** The package name of a bare specifier: 'a/b' → 'a', '@s/a/b' → '@s/a'. */
export function packageName(spec) {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const isBare = (spec) => !spec.startsWith('.') && !spec.startsWith('/') && !/^[a-z]+:/i.test(spec);

// ---------------------------------------------------------------------------------------
// Building the package

/** A folder electron-builder accepts as an unpacked Electron distribution for linux. */
function makeStandInElectron(dir) {
  mkdirSync(path.join(dir, 'resources'), { recursive: true });
  mkdirSync(path.join(dir, 'locales'), { recursive: true });
  // electron-builder renames `electron` to the app's executable name.
  writeFileSync(
    path.join(dir, 'electron'),
    '#!/bin/sh\necho "stand-in for the Electron runtime (package check)" >&2\nexit 1\n',
    {
      mode: 0o755,
    },
  );
  writeFileSync(path.join(dir, 'version'), 'stand-in');
}

/** Runs electron-builder --dir --linux for `project` into `outDir`; returns the app folder. */
async function buildPackage(project, work) {
  const electronDist = path.join(work, 'electron-dist');
  const outDir = path.join(work, 'out');
  makeStandInElectron(electronDist);
  const { build, Platform, Arch } = await import('electron-builder');
  await build({
    projectDir: project,
    targets: Platform.LINUX.createTarget('dir', Arch[process.arch] ?? Arch.x64),
    publish: 'never',
    config: {
      electronDist,
      npmRebuild: false,
      // The release's afterPack builds better-sqlite3 for the Electron it packs (headers or a
      // prebuilt addon downloaded for that version): there is no such runtime here.
      afterPack: null,
      directories: { output: outDir, buildResources: 'assets' },
    },
  });
  const appDir = readdirSync(outDir)
    .map((n) => path.join(outDir, n))
    .find((p) => existsSync(path.join(p, 'resources', 'app.asar')));
  if (!appDir) throw new Error(`electron-builder wrote no resources/app.asar under ${outDir}`);
  return appDir;
}

// ---------------------------------------------------------------------------------------
// Reading the package

/** The package's files: app.asar's header, with each unpacked file checked on disk. */
function readPackage(appDir, asar) {
  const archive = path.join(appDir, 'resources', 'app.asar');
  const unpackedDir = `${archive}.unpacked`;
  const { header } = asar.getRawHeader(archive);
  /** packed path (posix, relative) → { size, unpacked } */
  const files = new Map();
  const walk = (node, prefix) => {
    for (const [name, entry] of Object.entries(node.files ?? {})) {
      const p = prefix ? `${prefix}/${name}` : name;
      if (entry.files) walk(entry, p);
      else if (entry.link) files.set(p, { size: 0, unpacked: false, link: entry.link });
      else files.set(p, { size: Number(entry.size ?? 0), unpacked: entry.unpacked === true });
    }
  };
  walk(header, '');
  const missingUnpacked = [...files].filter(([p, f]) => f.unpacked && !existsSync(path.join(unpackedDir, p)));
  const read = (p) => {
    const f = files.get(p);
    if (!f) return null;
    return f.unpacked ? readFileSync(path.join(unpackedDir, p)) : asar.extractFile(archive, p);
  };
  return {
    archive,
    unpackedDir,
    files,
    missingUnpacked: missingUnpacked.map(([p]) => p),
    read,
    readText: (p) => read(p)?.toString('utf8') ?? null,
    readJson: (p) => {
      const t = read(p)?.toString('utf8');
      return t == null ? null : JSON.parse(t);
    },
  };
}

function dirSize(dir) {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += dirSize(p);
    else if (e.isFile()) total += statSync(p).size;
  }
  return total;
}

// ---------------------------------------------------------------------------------------
// What a file loads

/**
 * The modules one JavaScript file loads: static imports and re-exports, `import()` and
 * `require()` (also esbuild's `__require` shim) with a literal name. A load inside a `try`
 * block is `optional` (ws's `require('bufferutil')`: the code goes on without it). Calls with
 * a computed name are counted, not followed.
 */
export function moduleLoads(source, { module: asModule, acorn, walk }) {
  const ast = acorn.parse(source, {
    ecmaVersion: 'latest',
    sourceType: asModule ? 'module' : 'script',
    allowHashBang: true,
    allowReturnOutsideFunction: !asModule,
  });
  const loads = [];
  let computed = 0;
  const literal = (node) => {
    if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
    if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
    return null;
  };
  const add = (node, kind, ancestors) => {
    const spec = literal(node);
    if (spec == null) computed++;
    else
      loads.push({
        spec,
        kind,
        optional: ancestors.some((a, i) => a.type === 'TryStatement' && ancestors[i + 1] === a.block),
      });
  };
  walk.fullAncestor(ast, (node, _state, ancestors) => {
    switch (node.type) {
      case 'ImportDeclaration':
        add(node.source, 'import', ancestors);
        break;
      case 'ExportAllDeclaration':
      case 'ExportNamedDeclaration':
        if (node.source) add(node.source, 'import', ancestors);
        break;
      case 'ImportExpression':
        add(node.source, 'import()', ancestors);
        break;
      case 'CallExpression':
        if (
          node.callee.type === 'Identifier' &&
          (node.callee.name === 'require' || node.callee.name === '__require') &&
          node.arguments.length === 1
        )
          add(node.arguments[0], 'require', ancestors);
        break;
    }
  });
  return { loads, computed };
}

// ---------------------------------------------------------------------------------------
// The check

/** Resolves `name` from packed folder `fromDir` the way Node does: node_modules folders upwards. */
function resolvePackageDir(pkg, name, fromDir) {
  let dir = fromDir;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (pkg.files.has(`${candidate}/package.json`)) return candidate;
    if (!dir) return null;
    const up = posix.dirname(dir);
    dir = up === '.' ? '' : up;
  }
}

function resolveRelativeFile(pkg, spec, fromFile) {
  const base = posix.normalize(posix.join(posix.dirname(fromFile), spec));
  for (const c of [base, `${base}.js`, `${base}.mjs`, `${base}.cjs`, `${base}.json`, `${base}/index.js`])
    if (pkg.files.has(c)) return c;
  return null;
}

/** The file a bare specifier's package entry names (main or index.js), when it has no `exports`. */
function packageEntryMissing(pkg, pkgDir, json, subpath) {
  if (json.exports) return null; // conditional exports: the package folder is what we can check
  const target = subpath
    ? posix.join(pkgDir, subpath)
    : posix.join(pkgDir, (json.main ?? 'index.js').replace(/^\.\//, '').replace(/\/$/, '/index.js'));
  for (const c of [target, `${target}.js`, `${target}.json`, `${target}.node`, `${target}/index.js`])
    if (pkg.files.has(c)) return null;
  return posix.relative(pkgDir, target);
}

let libcFamily;
/** 'glibc' or 'musl' on linux (what npm's `libc` field names), else undefined. */
function hostLibc() {
  if (process.platform !== 'linux') return undefined;
  libcFamily ??= process.report.getReport().header.glibcVersionRuntime ? 'glibc' : 'musl';
  return libcFamily;
}

/** Whether an installed optional package is meant for this platform (npm's os/cpu/libc). */
function fitsPlatform(json) {
  const fits = (list, value) => {
    if (!Array.isArray(list) || list.length === 0) return true;
    const denied = list.filter((v) => v.startsWith('!')).map((v) => v.slice(1));
    const allowed = list.filter((v) => !v.startsWith('!'));
    return !denied.includes(value) && (allowed.length === 0 || allowed.includes(value));
  };
  const libc = hostLibc();
  return fits(json.os, process.platform) && fits(json.cpu, process.arch) && (!libc || fits(json.libc, libc));
}

/** The packages each dist/ source map says a bundle holds: package name → [bundle file]. */
function inlinedPackages(project) {
  const found = new Map();
  const walkDir = (rel) => {
    let entries;
    try {
      entries = readdirSync(path.join(project, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walkDir(child);
      } else if (e.name.endsWith('.map')) {
        let sources;
        try {
          sources = JSON.parse(readFileSync(path.join(project, child), 'utf8')).sources ?? [];
        } catch {
          continue;
        }
        for (const s of sources) {
          const i = s.lastIndexOf('node_modules/');
          if (i < 0) continue;
          const name = packageName(s.slice(i + 'node_modules/'.length));
          const bundles = found.get(name) ?? new Set();
          bundles.add(child.slice(0, -'.map'.length));
          found.set(name, bundles);
        }
      }
    }
  };
  walkDir('dist');
  return found;
}

/**
 * Checks a built package (`appDir`, the folder with resources/app.asar) of `project`.
 * Returns { problems: string[], notes: string[], report: string }.
 */
export async function checkPackage(project, appDir) {
  const asar = await import('@electron/asar');
  const acorn = await import('acorn');
  const walk = await import('acorn-walk');
  const pkg = readPackage(appDir, asar);
  const projectJson = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8'));
  const deps = projectJson.dependencies ?? {};
  const optionalDeps = projectJson.optionalDependencies ?? {};
  const devDeps = projectJson.devDependencies ?? {};
  const problems = [];
  const notes = [];

  for (const p of pkg.missingUnpacked)
    problems.push(`${p} is marked unpacked in app.asar but is not in app.asar.unpacked`);

  // 1. The entry points, from the package's own package.json.
  const packedJson = pkg.readJson('package.json');
  if (!packedJson) {
    problems.push('app.asar holds no package.json');
    return { problems, notes, report: '' };
  }
  const mainEntry = posix.normalize(packedJson.main ?? 'index.js');
  const entries = [mainEntry, PRELOAD, CLI, ...EMULATOR_HOSTS];
  for (const e of entries) if (!pkg.files.has(e)) problems.push(`${e} is not in the package`);

  // 2. Follow every file of the app the entries reach; collect the bare specifiers they load.
  /** package name → [{ file, kind }] : what the app's own files load from node_modules */
  const appLoads = new Map();
  const reachedFiles = new Set();
  /** file → [{ target, kind }] relative loads, to tell what the main process loads at start */
  const fileEdges = new Map();
  let computedLoads = 0;
  const queue = entries.filter((e) => pkg.files.has(e));
  while (queue.length) {
    const file = queue.shift();
    if (reachedFiles.has(file)) continue;
    reachedFiles.add(file);
    if (file.endsWith('.json')) continue;
    const asModule = file.endsWith('.mjs') || (file.endsWith('.js') && packedJson.type === 'module');
    let result;
    try {
      result = moduleLoads(pkg.readText(file), { module: asModule, acorn, walk });
    } catch (e) {
      problems.push(`${file} does not parse as ${asModule ? 'an ES module' : 'a CommonJS script'}: ${e.message}`);
      continue;
    }
    computedLoads += result.computed;
    const edges = [];
    fileEdges.set(file, edges);
    for (const { spec, kind, optional } of result.loads) {
      if (isBuiltin(spec)) continue;
      if (!isBare(spec)) {
        const target = resolveRelativeFile(pkg, spec, file);
        if (target) {
          queue.push(target);
          edges.push({ target, kind });
        } else problems.push(`${file} loads ${spec} (${kind}), which is not in the package`);
        continue;
      }
      const name = packageName(spec);
      if (RUNTIME_PROVIDED.has(name)) continue;
      const list = appLoads.get(name) ?? [];
      list.push({ file, kind, spec, optional });
      appLoads.set(name, list);
      edges.push({ name, kind });
    }
  }
  // What the main process loads before its first line runs: static imports (and requires in
  // the files they reach), not `import()`. A native addon here fails the app's start.
  const atStart = new Set();
  const startFiles = new Set([mainEntry]);
  const startQueue = [mainEntry];
  while (startQueue.length) {
    for (const e of fileEdges.get(startQueue.shift()) ?? []) {
      if (e.kind === 'import()') continue;
      if (e.name) atStart.add(e.name);
      else if (!startFiles.has(e.target)) {
        startFiles.add(e.target);
        startQueue.push(e.target);
      }
    }
  }
  if (computedLoads)
    notes.push(`${computedLoads} import()/require call(s) in dist/ with a computed name were not followed`);

  // 3. Every package the app loads: declared in dependencies, and packed.
  /** packed package dir → { name, via } */
  const reachedPackages = new Map();
  const pkgQueue = [];
  const where = (list) => {
    const files = [...new Set(list.map((l) => `${l.file} (${l.kind})`))];
    return files.length > 2 ? `${files.slice(0, 2).join(', ')} and ${files.length - 2} more` : files.join(', ');
  };
  for (const [name, list] of [...appLoads].sort(([a], [b]) => a.localeCompare(b))) {
    const firstFile = list[0].file;
    const dir = resolvePackageDir(pkg, name, posix.dirname(firstFile));
    const declared = name in deps || name in optionalDeps;
    if (!dir && !declared && list.every((l) => l.optional)) {
      notes.push(
        `${name} is loaded only inside a try block by ${where(list)} and is not packed: the code runs without it`,
      );
      continue;
    }
    if (!declared) {
      const why =
        name in devDeps
          ? 'it is in devDependencies, which electron-builder does not pack; move it to dependencies'
          : 'package.json does not declare it; add it to dependencies';
      problems.push(
        `${name} is loaded by ${where(list)} but ${dir ? 'is packed only as a dependency of another package: ' : 'is not packed: '}${why}`,
      );
    } else if (!dir) {
      problems.push(`${name} is loaded by ${where(list)} and is in dependencies, but electron-builder did not pack it`);
    }
    if (dir) {
      const json = pkg.readJson(`${dir}/package.json`);
      for (const { spec } of list) {
        const sub = spec.slice(name.length + 1);
        const missing = packageEntryMissing(pkg, dir, json, sub);
        if (missing) problems.push(`${spec} is loaded by ${where(list)} but ${dir}/${missing} is not in the package`);
      }
      if (!reachedPackages.has(dir)) {
        reachedPackages.set(dir, { name, via: firstFile });
        pkgQueue.push(dir);
      }
    }
  }

  // 4. Recursively, what each packed package needs (its package.json's dependencies).
  const needsOf = (dir) => {
    const json = pkg.readJson(`${dir}/package.json`) ?? {};
    const needs = [
      ...Object.keys(json.dependencies ?? {}).map((d) => [d, 'dependency']),
      ...Object.keys(json.peerDependencies ?? {})
        .filter((d) => !json.peerDependenciesMeta?.[d]?.optional)
        .map((d) => [d, 'peer dependency']),
    ];
    for (const d of Object.keys(json.optionalDependencies ?? {})) {
      // Needed when npm installed it in the project for this platform (it installs only those).
      const installed = findInstalled(`${d}/package.json`, path.join(project, dir));
      if (installed && fitsPlatform(JSON.parse(readFileSync(installed, 'utf8'))))
        needs.push([d, 'optional dependency for this platform']);
    }
    return needs.filter(([d]) => !RUNTIME_PROVIDED.has(d));
  };
  while (pkgQueue.length) {
    const dir = pkgQueue.shift();
    const { name, via } = reachedPackages.get(dir);
    for (const [d, kind] of needsOf(dir)) {
      const found = resolvePackageDir(pkg, d, dir);
      if (!found) {
        problems.push(
          `${d}, ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} of ${name} (loaded from ${via}), is not in the package`,
        );
        continue;
      }
      if (!reachedPackages.has(found)) {
        reachedPackages.set(found, { name: d, via: `${name}` });
        pkgQueue.push(found);
      }
    }
  }

  // 5. Native addons: in the unpacked part.
  const natives = new Map();
  for (const [p, f] of pkg.files) {
    if (!p.endsWith('.node') || !p.startsWith('node_modules/')) continue;
    const dir = packageDirOf(p);
    const list = natives.get(dir) ?? [];
    list.push({ p, unpacked: f.unpacked });
    natives.set(dir, list);
  }
  for (const [dir, list] of natives) {
    if (!reachedPackages.has(dir)) continue;
    for (const { p, unpacked } of list)
      if (!unpacked) problems.push(`${p} is a native addon inside app.asar: add ${dir} to asarUnpack`);
  }
  for (const name of ['better-sqlite3']) {
    const dir = resolvePackageDir(pkg, name, '');
    if (dir && !natives.get(dir)?.some((n) => n.unpacked))
      problems.push(`${name} has no native addon in app.asar.unpacked`);
  }

  // 6. Nothing packed that nothing loads: each packed package no load reaches is reported
  // under the `dependencies` entry that brought it (with what it drags in), or by itself.
  const inlined = inlinedPackages(project);
  const packedDirs = new Set(
    [...pkg.files.keys()]
      .filter((p) => p.startsWith('node_modules/') && p.endsWith('/package.json'))
      .map((p) => p.slice(0, -'/package.json'.length))
      .filter((d) => packageDirOf(`${d}/package.json`) === d),
  );
  const unloaded = new Set([...packedDirs].filter((d) => !reachedPackages.has(d)));
  const explained = new Set();
  for (const name of Object.keys(deps).sort()) {
    const dir = `node_modules/${name}`;
    if (!unloaded.has(dir)) continue;
    // What this entry drags in that nothing else needs.
    const closure = new Set([dir]);
    const todo = [dir];
    while (todo.length) {
      const d = todo.shift();
      for (const [n] of needsOf(d)) {
        const found = resolvePackageDir(pkg, n, d);
        if (found && unloaded.has(found) && !closure.has(found)) {
          closure.add(found);
          todo.push(found);
        }
      }
    }
    let bytes = 0;
    for (const [p, f] of pkg.files) if (closure.has(packageDirOf(p))) bytes += f.size;
    for (const d of closure) explained.add(d);
    const holders = [...(inlined.get(name) ?? [])].filter(
      (f) => reachedFiles.has(f) || (f.startsWith('dist/renderer/') && pkg.files.has(f)),
    );
    const why = holders.length
      ? `the build already inlined it into ${holders.sort().join(', ')}, so it is a build input`
      : 'no file of dist/ holds or loads it';
    problems.push(
      `${name} is in dependencies, so it is packed (${closure.size > 1 ? `with ${closure.size - 1} package(s) it brings, ` : ''}${MB(bytes)}), but nothing loads it at run time: ${why}; move it to devDependencies${holders.length ? '' : ' or drop it'}`,
    );
  }
  const stray = [...unloaded].filter((d) => !explained.has(d)).sort();
  if (stray.length) problems.push(`packed but loaded by nothing: ${stray.join(', ')}`);

  // 7. Files of dist/ no entry reaches: renderer files are served by the app:// protocol;
  // others are chunks of earlier builds (build-lib prunes them after a while).
  const strayChunks = [...pkg.files].filter(
    ([p]) => /^dist\/(cli|electron)\/.*\.(m|c)?js$/.test(p) && !reachedFiles.has(p),
  );
  if (strayChunks.length)
    notes.push(
      `${strayChunks.length} file(s) of dist/ (${MB(strayChunks.reduce((a, [, f]) => a + f.size, 0))}) are loaded by no entry: chunks of an earlier build, pruned by the next build 10 minutes after (${strayChunks.map(([p]) => p).join(', ')})`,
    );

  const later = [...appLoads.keys()].filter((n) => !atStart.has(n));
  const report = [
    sizeReport(pkg, reachedPackages, appLoads),
    `${mainEntry} loads at start: ${[...atStart].sort().join(', ') || 'no package'}; on demand (import()) or only from the CLI: ${later.sort().join(', ') || 'nothing'}`,
  ].join('\n');
  return { problems, notes, report };
}

/** The package folder (innermost node_modules/<name>) a packed file belongs to. */
function packageDirOf(p) {
  const i = p.lastIndexOf('node_modules/');
  const name = packageName(p.slice(i + 'node_modules/'.length));
  return `${p.slice(0, i)}node_modules/${name}`;
}

/** Node's lookup of `spec` from folder `fromDir` in the project's own tree: the path, or null. */
function findInstalled(spec, fromDir) {
  let dir = fromDir;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', spec);
    if (existsSync(candidate)) return candidate;
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

const MB = (n) => `${(n / 1e6).toFixed(1)} MB`;

function sizeReport(pkg, reachedPackages, appLoads) {
  const asarBytes = statSync(pkg.archive).size;
  const unpackedBytes = dirSize(pkg.unpackedDir);
  const groups = new Map();
  for (const [p, f] of pkg.files) {
    // node_modules by top-level package (nested copies count with it), dist/ by folder.
    const key = p.startsWith('node_modules/')
      ? `node_modules/${packageName(p.slice('node_modules/'.length))}`
      : p.split('/').slice(0, 2).join('/');
    const g = groups.get(key) ?? { bytes: 0, files: 0, unpacked: 0 };
    g.bytes += f.size;
    g.files++;
    if (f.unpacked) g.unpacked += f.size;
    groups.set(key, g);
  }
  const lines = [
    `package: app.asar ${MB(asarBytes)} + app.asar.unpacked ${MB(unpackedBytes)} = ${MB(asarBytes + unpackedBytes)}`,
    `loaded at run time from node_modules: ${[...appLoads.keys()].sort().join(', ') || 'nothing'} (${reachedPackages.size} packages with their dependencies)`,
  ];
  const sorted = [...groups].sort((a, b) => b[1].bytes - a[1].bytes);
  const SHOWN = 15;
  for (const [key, g] of sorted.slice(0, SHOWN))
    lines.push(
      `  ${MB(g.bytes).padStart(8)}  ${key} (${g.files} files${g.unpacked ? `, ${MB(g.unpacked)} unpacked` : ''})`,
    );
  if (sorted.length > SHOWN) {
    const rest = sorted.slice(SHOWN).reduce((a, [, g]) => a + g.bytes, 0);
    lines.push(`  ${MB(rest).padStart(8)}  ${sorted.length - SHOWN} more`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------

async function main() {
  const { values } = parseArgs({
    options: { project: { type: 'string' }, app: { type: 'string' }, keep: { type: 'boolean', default: false } },
  });
  const project = path.resolve(values.project ?? ROOT);
  if (project === ROOT) {
    const built = spawnSync(process.execPath, [path.join(HERE, 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
    if (built.status !== 0) process.exit(built.status ?? 1);
  } else if (!existsSync(path.join(project, 'dist'))) {
    console.error(`package check: ${project} has no dist/; build it first`);
    process.exit(2);
  }
  const work = mkdtempSync(path.join(os.tmpdir(), 'blocklift-package-check-'));
  const started = Date.now();
  try {
    const appDir = values.app ? path.resolve(values.app) : await buildPackage(project, work);
    const built = Date.now();
    const { problems, notes, report } = await checkPackage(project, appDir);
    console.log(report);
    for (const n of notes) console.log(`note: ${n}`);
    console.log(
      `package check: built in ${((built - started) / 1000).toFixed(1)} s, checked in ${((Date.now() - built) / 1000).toFixed(1)} s`,
    );
    if (problems.length) {
      console.error(`package check: FAILED, ${problems.length} problem(s):`);
      for (const p of problems) console.error(`  - ${p}`);
      if (lstatSync(path.join(project, 'node_modules'), { throwIfNoEntry: false })?.isSymbolicLink())
        console.error(
          'package check: node_modules is a symbolic link here; `npm list`, which electron-builder asks for the tree, ' +
            'then reports nested dependencies as missing and they are not packed: check a project with node_modules installed in it',
        );
      return 1;
    }
    console.log('package check: every module the main process, the preload and the CLI load is in the package');
    return 0;
  } finally {
    if (values.keep) console.log(`package check: output kept in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // An explicit exit: electron-builder leaves process.exitCode at 0 on its way out.
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(`package check: ${e?.stack ?? e}`);
      process.exit(2);
    },
  );
}
