import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractAll } from '@electron/asar';
import { afterAll, describe, expect, it } from 'vitest';
import { IPC_CALL_CHANNEL } from '../../../src-main/shared/wire';
import { startStandIn } from '../../helpers/electron-runtime/run';

/**
 * `npm run package:check` (bin/package-check.mjs, issue 22): electron-builder --dir with a
 * stand-in Electron, then the package's own files must hold every module the main process,
 * the preload and the CLI load. Each run builds a package (about 10 to 40 s here, by load).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const CHECK = path.join(ROOT, 'bin/package-check.mjs');
const BUILD_MS = 150_000;

const temps: string[] = [];
const tempDir = (prefix: string, base = os.tmpdir()): string => {
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(path.join(base, prefix));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], cwd = ROOT): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The problems the check listed (its "  - " lines on stderr). */
const problems = (r: Run): string[] =>
  r.stderr
    .split('\n')
    .filter((l) => l.startsWith('  - '))
    .map((l) => l.slice(4));

describe('npm run package:check', () => {
  it(
    'passes on this project, and the package it built runs from its own files',
    async () => {
      const addon = path.join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
      const addonHash = () => createHash('sha256').update(readFileSync(addon)).digest('hex');
      const before = addonHash();
      const r = await run([CHECK, '--keep']);
      // A package build leaves the project's own better-sqlite3 as it was: the Node build,
      // which the CLI and the tests load (a release builds Electron's in a staging folder).
      expect(addonHash()).toBe(before);
      const inNode = await run([
        '-e',
        "const D = require('better-sqlite3'); console.log(new D(':memory:').prepare('select 6 * 7 as x').get().x)",
      ]);
      expect(inNode.stderr).toBe('');
      expect(inNode.stdout).toBe('42\n');
      expect(problems(r)).toEqual([]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^package: app\.asar [\d.]+ MB \+ app\.asar\.unpacked [\d.]+ MB = [\d.]+ MB$/m);
      // The watcher's native addon loads when a folder is watched, not at the app's start.
      const start = /^dist\/electron\/main\.js loads at start: (.*); on demand/m.exec(r.stdout)?.[1];
      expect(start?.split(', ')).toContain('better-sqlite3');
      expect(start?.split(', ')).not.toContain('@parcel/watcher');

      const work = /output kept in (.*)$/m.exec(r.stdout)?.[1];
      expect(work).toBeTruthy();
      temps.push(work!);
      // Out of app.asar and app.asar.unpacked into a folder with no node_modules above it:
      // plain Node (the addons were not rebuilt for Electron) runs the CLI and loads both
      // native addons from the package's files alone.
      const resources = path.join(work!, 'out/linux-unpacked/resources');
      const app = tempDir('bl-package-app-');
      extractAll(path.join(resources, 'app.asar'), app);
      cpSync(path.join(resources, 'app.asar.unpacked'), app, { recursive: true });
      const watched = tempDir('bl-package-watched-');
      const probe = path.join(app, 'probe.mjs');
      writeFileSync(
        probe,
        `
        import { writeFileSync } from 'node:fs';
        import { createRequire } from 'node:module';
        const require = createRequire(import.meta.url);
        const { main } = await import('./dist/cli/cli.mjs');
        await main(['node', 'blocklift', '--version']);
        const Database = require('better-sqlite3');
        console.log('sqlite', new Database(':memory:').prepare('select 41 + 1 as x').get().x);
        const watcher = require('@parcel/watcher');
        setTimeout(() => {
          console.error('the watcher saw no event for new.txt in 20 s');
          process.exit(1);
        }, 20_000).unref();
        const seen = new Promise((resolve) => {
          watcher.subscribe(${JSON.stringify(watched)}, (err, events) => {
            if (events.some((e) => e.path.endsWith('new.txt'))) resolve();
          }).then((sub) => {
            writeFileSync(${JSON.stringify(path.join(watched, 'new.txt'))}, 'x');
            seen.then(() => sub.unsubscribe()).then(() => console.log('watcher saw new.txt'));
          });
        });
        `,
      );
      const p = await run([probe], app);
      expect(p.stderr).toBe('');
      const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string })
        .version;
      expect(p.stdout.split('\n')).toEqual([version, 'sqlite 42', 'watcher saw new.txt', '']);
      expect(p.code).toBe(0);

      // The packed main.js starts from the package's files alone, with the stand-in runtime
      // (test/helpers/electron-runtime): window, a verb over IPC, quit. @parcel/watcher is in
      // the package but must not load at start (an eager import fails this as a missing module).
      const desktop = startStandIn({ appPath: app, dir: tempDir('bl-package-desktop-'), block: ['@parcel/watcher'] });
      try {
        await desktop.waitFor('window-loaded');
        const status = (await desktop.command('invoke', {
          channel: IPC_CALL_CHANNEL,
          args: ['app.status', undefined],
        })) as { value: { ok: boolean } };
        expect(status.value.ok).toBe(true);
        await desktop.command('quit');
        expect(await desktop.exited).toEqual({ code: 0, signal: null });
        expect(desktop.stderr()).toBe('');
      } finally {
        desktop.kill();
      }
    },
    BUILD_MS,
  );

  it(
    'fails, naming the module, when a module dist/ loads is only in devDependencies, and when a dependency is inlined and packed twice',
    async () => {
      // A copy of the project (the worktree's files stay as they are) whose package.json
      // moves better-sqlite3 to devDependencies and puts zod (inlined by esbuild) back.
      // Inside the checkout's git-ignored .tmp/: hard links need the same file system as node_modules.
      const copy = tempDir('bl-package-copy-', path.join(ROOT, '.tmp'));
      const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      pkg.devDependencies['better-sqlite3'] = pkg.dependencies['better-sqlite3']!;
      delete pkg.dependencies['better-sqlite3'];
      pkg.dependencies['zod'] = pkg.devDependencies['zod']!;
      delete pkg.devDependencies['zod'];
      writeFileSync(path.join(copy, 'package.json'), JSON.stringify(pkg, null, 2));
      for (const f of ['package-lock.json', 'electron-builder.yml']) cpSync(path.join(ROOT, f), path.join(copy, f));
      // node_modules and dist/ as hard links (a few seconds, no bytes copied): electron-builder
      // asks `npm list` for the tree, which reports a symlinked node_modules' nested
      // dependencies as missing, and it packs no folder that is a symlink.
      for (const d of ['node_modules', 'dist'])
        execFileSync('cp', ['-al', realpathSync(path.join(ROOT, d)), path.join(copy, d)]);
      symlinkSync(path.join(ROOT, 'assets'), path.join(copy, 'assets'));

      const r = await run([CHECK, '--project', copy]);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      const listed = problems(r);
      expect(listed, listed.join('\n')).toHaveLength(2);
      expect(listed[0]).toMatch(
        /^better-sqlite3 is loaded by dist\/electron\/[\w-]+\.js \(import\).* but is not packed: it is in devDependencies, which electron-builder does not pack; move it to dependencies$/,
      );
      expect(listed[1]).toMatch(
        /^zod is in dependencies, so it is packed \([\d.]+ MB\), but nothing loads it at run time: the build already inlined it into .*dist\/electron\/[\w-]+\.js.*; move it to devDependencies$/,
      );
    },
    BUILD_MS,
  );
});
