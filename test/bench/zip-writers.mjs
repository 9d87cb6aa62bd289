#!/usr/bin/env node
// Which ZIP library writes the app's archives (the support bundle, the emulator's Fmgr
// `compress`): each candidate writes the same archive, in its own child process, one at a
// time: a 1 GiB incompressible entry (media, the usual content of `compress`) and many small
// compressible ones, streamed from files. For each: wall time, CPU time (user + system of the
// child), peak RSS of the child, the archive's size, and `unzip -tq` on the result. Modes:
// `deflate` (every entry deflated, level 6) and `store-big` (the big entry stored, the small
// ones deflated: what base/zip.ts does with media).
//
//   node test/bench/zip-writers.mjs [--modules DIR] [--big-mib 1024] [--small 10000] [--readme FILE]
//
// --modules: a node_modules folder holding the candidates (yazl, archiver, fflate; the project
// itself has only yazl, so the others are installed in a scratch folder for the run). With
// --readme the table replaces what is between `<!-- zip-bench:begin -->` and
// `<!-- zip-bench:end -->` in FILE (figures are never typed by hand).
import { spawnSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = fileURLToPath(import.meta.url);
const CANDIDATES = ['yazl', 'archiver', 'fflate'];
const MODES = ['deflate', 'store-big'];

if (process.argv[2] === 'child') await child(process.argv.slice(3));
else await parent();

async function parent() {
  const { values } = parseArgs({
    options: {
      modules: { type: 'string', default: path.resolve(path.dirname(HERE), '../../node_modules') },
      'big-mib': { type: 'string', default: '1024' },
      small: { type: 'string', default: '10000' },
      readme: { type: 'string' },
    },
  });
  const bigBytes = Number(values['big-mib']) * 1024 * 1024;
  const smallCount = Number(values.small);
  const work = mkdtempSync(path.join(os.tmpdir(), 'bl-zip-bench-'));
  try {
    const input = path.join(work, 'in');
    mkdirSync(path.join(input, 'small'), { recursive: true });
    const chunk = Buffer.alloc(16 * 1024 * 1024);
    const fd = createWriteStream(path.join(input, 'big.bin'));
    for (let left = bigBytes; left > 0; left -= chunk.length) {
      randomFillSync(chunk);
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      if (!fd.write(Buffer.from(piece))) await new Promise((r) => fd.once('drain', r));
    }
    await new Promise((r) => fd.end(r));
    for (let i = 0; i < smallCount; i++)
      writeFileSync(path.join(input, 'small', `f${i}.txt`), `line ${i} of a small log file\n`.repeat(40));
    const load = () =>
      os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ');
    const loadBefore = load();
    const rows = [];
    for (const mode of MODES)
      for (const lib of CANDIDATES) {
        const out = path.join(work, `${lib}-${mode}.zip`);
        const r = spawnSync(
          process.execPath,
          [HERE, 'child', lib, mode, input, out, String(smallCount), values.modules],
          {
            encoding: 'utf8',
          },
        );
        if (r.status !== 0) {
          rows.push({ lib, mode, error: (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ') });
          continue;
        }
        const m = JSON.parse(r.stdout.trim().split('\n').pop());
        const test = spawnSync('unzip', ['-tq', out], { encoding: 'utf8' });
        rows.push({
          lib,
          mode,
          ...m,
          bytes: statSync(out).size,
          unzip: /No errors/.test(test.stdout) ? 'ok' : 'FAILED',
        });
        rmSync(out, { force: true });
        process.stderr.write(`${lib} ${mode}: ${JSON.stringify(rows.at(-1))}\n`);
      }
    const version = (lib) => JSON.parse(readFileSync(path.join(values.modules, lib, 'package.json'), 'utf8')).version;
    const table = [
      `_Written by \`node test/bench/zip-writers.mjs --modules <dir with ${CANDIDATES.join(', ')}> --readme src-main/base/README.md\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}, 1-minute load ${loadBefore} (1 / 5 / 15 min) before, ${load()} after. Input: one ${values['big-mib']} MiB random entry and ${smallCount} small text files (1.2 KiB each). Do not edit by hand._`,
      '',
      '| library | mode | wall s | CPU s | peak RSS MiB | archive MiB | unzip -t |',
      '|---|---|---|---|---|---|---|',
      ...rows.map((r) =>
        r.error
          ? `| ${r.lib} ${version(r.lib)} | ${r.mode} | failed: ${r.error.replace(/\|/g, '/')} | | | | |`
          : `| ${r.lib} ${version(r.lib)} | ${r.mode} | ${r.wallS.toFixed(1)} | ${r.cpuS.toFixed(1)} | ${(r.maxRssKiB / 1024).toFixed(0)} | ${(r.bytes / 1024 / 1024).toFixed(0)} | ${r.unzip} |`,
      ),
    ].join('\n');
    process.stdout.write(`${table}\n`);
    if (values.readme) {
      const text = readFileSync(values.readme, 'utf8');
      const begin = '<!-- zip-bench:begin -->';
      const end = '<!-- zip-bench:end -->';
      const a = text.indexOf(begin);
      const b = text.indexOf(end);
      if (a < 0 || b < a) throw new Error(`${values.readme} has no ${begin} … ${end} block`);
      writeFileSync(values.readme, `${text.slice(0, a + begin.length)}\n${table}\n${text.slice(b)}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** One candidate writing the archive; prints {wallS, cpuS, maxRssKiB}. */
async function child([lib, mode, input, out, smallCount, modules]) {
  const req = createRequire(path.join(modules, 'x.js'));
  const entries = [
    { name: 'big.bin', file: path.join(input, 'big.bin'), compress: mode === 'deflate' },
    ...Array.from({ length: Number(smallCount) }, (_, i) => ({
      name: `small/f${i}.txt`,
      file: path.join(input, 'small', `f${i}.txt`),
      compress: true,
    })),
  ];
  const mtime = new Date();
  // Loaded before the clock starts: what is measured is writing, not loading.
  const mod =
    lib === 'archiver' ? await import(pathToFileURL(path.join(modules, 'archiver', 'index.js')).href) : req(lib);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const sink = createWriteStream(out);
  const finished = new Promise((resolve, reject) => {
    sink.on('close', resolve);
    sink.on('error', reject);
  });
  if (lib === 'yazl') {
    const { ZipFile } = mod;
    const zip = new ZipFile();
    for (const e of entries) zip.addFile(e.file, e.name, { compress: e.compress, mtime, mode: 0o100644 });
    zip.outputStream.pipe(sink);
    zip.end();
  } else if (lib === 'archiver') {
    const { ZipArchive } = mod;
    const zip = new ZipArchive({ zlib: { level: 6 } });
    zip.pipe(sink);
    for (const e of entries) zip.file(e.file, { name: e.name, store: !e.compress, date: mtime, mode: 0o644 });
    await zip.finalize();
  } else if (lib === 'fflate') {
    const { Zip, ZipDeflate, ZipPassThrough } = mod;
    let fail;
    const zip = new Zip((err, data, final) => {
      if (err) fail = err;
      else sink.write(data);
      if (final) sink.end();
    });
    for (const e of entries) {
      const f = e.compress ? new ZipDeflate(e.name, { level: 6 }) : new ZipPassThrough(e.name);
      f.mtime = mtime;
      zip.add(f);
      let last = null;
      for await (const piece of createReadStream(e.file, { highWaterMark: 1024 * 1024 })) {
        if (last) f.push(last);
        last = piece;
        if (sink.writableNeedDrain) await new Promise((r) => sink.once('drain', r));
      }
      f.push(last ?? new Uint8Array(0), true);
      if (fail) throw fail;
    }
    zip.end();
  } else throw new Error(`unknown candidate ${lib}`);
  await finished;
  const c = process.cpuUsage(c0);
  process.stdout.write(
    `${JSON.stringify({ wallS: (performance.now() - t0) / 1000, cpuS: (c.user + c.system) / 1e6, maxRssKiB: process.resourceUsage().maxRSS })}\n`,
  );
}
