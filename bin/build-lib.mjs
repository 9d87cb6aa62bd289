// The build of dist/ and the check that it is current. Two parts, each with its own stamp:
//   main      esbuild bundles of the CLI (dist/cli/cli.mjs and its chunks), the Electron main process
//             (dist/electron/main.js and its chunks) and its preload (dist/electron/preload.cjs);
//   renderer  the Vite build of src-renderer into dist/renderer.
// A part is current when every input it was built from still exists and is not newer than
// the moment its build started (and, for the renderer, no file was added to its folders).
// `buildState` loads no bundler, so bin/blocklift.mjs can call it on every start.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
const stampFile = (root) => path.join(root, 'dist', 'build-stamp.json');

/** Native or runtime-provided modules: never bundled, loaded from node_modules (or by Electron). */
export const EXTERNALS = [
  'electron',
  'better-sqlite3',
  '@parcel/watcher',
  '@node-rs/crc32',
  'fsevents',
  'bufferutil',
  'utf-8-validate',
];

/** Files every part depends on besides its own sources. */
const SHARED_INPUTS = ['package.json', 'package-lock.json', 'bin/build-lib.mjs'];
/** Folders whose every file is an input of the renderer (a new file there makes it stale). */
const RENDERER_DIRS = ['src-renderer', 'src-main/shared', 'src-main/common'];
const RENDERER_FILES = ['vite.config.ts'];

function readStamp(root = ROOT) {
  try {
    return JSON.parse(readFileSync(stampFile(root), 'utf8'));
  } catch {
    return {};
  }
}

function writeStamp(part, value) {
  const stamp = readStamp();
  stamp[part] = value;
  mkdirSync(DIST, { recursive: true });
  const tmp = `${stampFile(ROOT)}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(stamp, null, 1));
  renameSync(tmp, stampFile(ROOT));
}

function listFiles(root, dir) {
  const out = [];
  const walk = (rel) => {
    let entries;
    try {
      entries = readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) out.push(child);
    }
  };
  walk(dir);
  return out;
}

function rendererInputs(root = ROOT) {
  return [
    ...RENDERER_DIRS.flatMap((d) => listFiles(root, d)),
    ...RENDERER_FILES.filter((f) => existsSync(path.join(root, f))),
  ];
}

/**
 * Why a part is not current, or null when it is. `part` is 'main' or 'renderer'.
 * Costs one stat per input (a few milliseconds). `root`: the project folder (tests pass a copy).
 */
export function staleReason(part, root = ROOT) {
  const entry = readStamp(root)[part];
  if (!entry) return `dist has no ${part} build`;
  for (const out of entry.outputs) if (!existsSync(path.join(root, out))) return `${out} is missing`;
  if (part === 'renderer') {
    const known = new Set(entry.inputs);
    const added = rendererInputs(root).find((f) => !known.has(f));
    if (added) return `${added} is new`;
  }
  for (const input of entry.inputs) {
    let mtime;
    try {
      mtime = statSync(path.join(root, input)).mtimeMs;
    } catch {
      return `${input} was removed`;
    }
    if (mtime > entry.startedAt) return `${input} changed`;
  }
  return null;
}

/** { main: reason|null, renderer: reason|null } */
export function buildState() {
  return { main: staleReason('main'), renderer: staleReason('renderer') };
}

/**
 * The window and tray icon and the macOS menu-bar template images (16 pt, @1x and @2x), copied
 * next to the Electron main bundle (electron-builder packs dist/ only).
 */
const ICONS = [
  ['assets/icons/512x512.png', 'icon.png'],
  ['assets/trayTemplate.png', 'trayTemplate.png'],
  ['assets/trayTemplate@2x.png', 'trayTemplate@2x.png'],
];

/** esbuild's `require` shim for CommonJS dependencies bundled into an ES module. */
const ESM_REQUIRE_BANNER =
  "import { createRequire as __blRequire } from 'node:module'; const require = __blRequire(import.meta.url);";

/** The compiled CLI: its entry and the chunks it loads on demand. */
export const CLI_DIR = 'dist/cli';
export const CLI_ENTRY = `${CLI_DIR}/cli.mjs`;
/** The Electron main process: main.js, the chunks it loads on demand, and the preload. */
const ELECTRON_DIR = 'dist/electron';
const ENTRY_FILES = new Set(['cli.mjs', 'main.js', 'preload.cjs', 'emulator-host.mjs', 'emulator-host.js']);
/** A chunk no build wrote for this long is no longer read by any running command. */
const STALE_CHUNK_MS = 10 * 60_000;

/**
 * Writes esbuild's output files through a temporary name, so a concurrent reader never
 * sees half a file; entries last, so a new entry never names a chunk not yet written
 * (chunk names carry a content hash: an old entry still finds its own).
 */
function writeAtomically(outputFiles) {
  const isEntry = (f) => ENTRY_FILES.has(path.basename(f.path));
  const ordered = [...outputFiles].sort((a, b) => Number(isEntry(a)) - Number(isEntry(b)));
  for (const f of ordered) {
    mkdirSync(path.dirname(f.path), { recursive: true });
    const tmp = `${f.path}.${process.pid}.tmp`;
    writeFileSync(tmp, f.contents);
    renameSync(tmp, f.path);
  }
}

/** The embedded emulator's thread or process (emulator/host.ts loads it next to its own chunk). */
const EMULATOR_HOST_ENTRY = 'src-main/emulator/host-entry.ts';

/** What every Node-side bundle is built with (the CLI, the Electron main process, bundleForNode). */
const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: EXTERNALS,
  sourcemap: 'linked',
  minifySyntax: true,
  minifyWhitespace: true,
  logLevel: 'warning',
  absWorkingDir: ROOT,
};

/**
 * One TypeScript entry bundled as the CLI's is (same esbuild options, one ES module), for a
 * program that must run as the product runs: the benchmark's uploader (test/bench/run.ts),
 * whose memory is then the product's, not tsx's loader's. Returns the output's absolute path.
 */
export async function bundleForNode(entryPoint, outfile) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    ...NODE_BUNDLE,
    format: 'esm',
    banner: { js: ESM_REQUIRE_BANNER },
    entryPoints: [entryPoint],
    outfile,
  });
  return path.resolve(ROOT, outfile);
}

/** Bundles the main-process entries with esbuild (about a second). */
export async function buildMain() {
  const startedAt = Date.now();
  const esbuild = await import('esbuild');
  const common = { ...NODE_BUNDLE, metafile: true, write: false };
  const esm = { ...common, format: 'esm', banner: { js: ESM_REQUIRE_BANNER } };
  const builds = await Promise.all([
    // Split, so what the code imports lazily stays lazy: the @parcel/watcher backend (a native
    // addon) loads when a folder is first watched with it, not when the app starts.
    esbuild.build({
      ...esm,
      splitting: true,
      entryPoints: { main: 'src-main/electron/main.ts', 'emulator-host': EMULATOR_HOST_ENTRY },
      outdir: ELECTRON_DIR,
    }),
    // Split: what only one command needs (the HTTP framework of `serve`…) loads when it runs.
    esbuild.build({
      ...esm,
      splitting: true,
      entryPoints: { cli: 'src-main/cli/main.ts', 'emulator-host': EMULATOR_HOST_ENTRY },
      outdir: CLI_DIR,
      outExtension: { '.js': '.mjs' },
    }),
    // A sandboxed preload is a CommonJS script that may require only 'electron'.
    esbuild.build({
      ...common,
      format: 'cjs',
      entryPoints: { preload: 'src-main/electron/preload.ts' },
      outdir: ELECTRON_DIR,
      outExtension: { '.js': '.cjs' },
    }),
  ]);
  const inputs = new Set([...SHARED_INPUTS, ...ICONS.map(([from]) => from)]);
  const outputs = ICONS.map(([, to]) => `${ELECTRON_DIR}/${to}`);
  mkdirSync(path.join(ROOT, ELECTRON_DIR), { recursive: true });
  for (const [from, to] of ICONS) copyFileSync(path.join(ROOT, from), path.join(ROOT, ELECTRON_DIR, to));
  for (const b of builds) {
    writeAtomically(b.outputFiles);
    for (const input of Object.keys(b.metafile.inputs)) if (!input.includes('node_modules/')) inputs.add(input);
    for (const out of Object.keys(b.metafile.outputs)) if (!out.endsWith('.map')) outputs.push(out);
  }
  pruneChunks(outputs);
  writeStamp('main', { startedAt, inputs: [...inputs].sort(), outputs });
}

/**
 * Deletes chunks (and their maps) of earlier builds that no build has written for a while,
 * in dist/cli and dist/electron; other files there (the icon, `npm start`'s package.json and
 * node_modules) are not chunks.
 */
function pruneChunks(current) {
  const keep = new Set(current.map((o) => path.join(ROOT, o)));
  for (const dir of [CLI_DIR, ELECTRON_DIR]) {
    for (const name of readdirSync(path.join(ROOT, dir))) {
      if (!/\.(m|c)?js(\.map)?$/.test(name)) continue;
      const file = path.join(ROOT, dir, name);
      const base = file.replace(/\.map$/, '');
      if (keep.has(base)) continue;
      try {
        if (Date.now() - statSync(file).mtimeMs > STALE_CHUNK_MS) unlinkSync(file);
      } catch {
        // Another build removed it first.
      }
    }
  }
}

/** Builds the renderer with Vite into dist/renderer (a few seconds). */
export async function buildRenderer() {
  const startedAt = Date.now();
  const inputs = [...SHARED_INPUTS, ...rendererInputs()];
  const { build } = await import('vite');
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn' });
  writeStamp('renderer', { startedAt, inputs, outputs: ['dist/renderer/index.html'] });
}
