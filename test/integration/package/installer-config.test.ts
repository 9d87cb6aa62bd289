import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import { Arch, build, Platform } from 'electron-builder';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_USER_MODEL_ID } from '../../../src-main/electron/desktop-integration';

/**
 * What each installer needs from electron-builder.yml and package.json, read by
 * electron-builder itself. The installers cannot be built here (electron-builder downloads fpm
 * for deb and appimagetool for AppImage; neither is a Debian package), so the deb target runs
 * on an empty prepackaged app up to the point where it would call fpm
 * (`effectiveOptionComputed`): its option checks (maintainer, homepage), the fpm arguments
 * and the .desktop file it writes are electron-builder's own.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const temps: string[] = [];
const tempDir = (prefix: string) => {
  mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  const d = mkdtempSync(path.join(ROOT, '.tmp', prefix));
  temps.push(d);
  return d;
};
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

interface DebPlan {
  /** fpm's arguments as electron-builder computed them. */
  args: string[];
  /** The .desktop file electron-builder wrote for the package. */
  desktopFile: string;
}

/** electron-builder's deb target for `project`, stopped before it runs fpm. */
async function planDeb(project: string, config: Record<string, unknown> = {}): Promise<DebPlan> {
  const work = tempDir('bl-deb-');
  const prepackaged = path.join(work, 'app');
  mkdirSync(path.join(prepackaged, 'resources'), { recursive: true });
  let plan: DebPlan | undefined;
  await build({
    projectDir: project,
    targets: Platform.LINUX.createTarget('deb', Arch.x64),
    publish: 'never',
    prepackaged,
    config: { directories: { output: path.join(work, 'out') }, ...config },
    effectiveOptionComputed: async (computed: unknown) => {
      const [args, desktopPath] = computed as [string[], string];
      plan = { args: [...args], desktopFile: readFileSync(desktopPath, 'utf8') };
      return true; // stop: fpm is not here
    },
  });
  if (!plan) throw new Error('electron-builder finished the deb target without computing its options');
  return plan;
}

/** electron-builder's merged configuration of `project` (electron-builder.yml over its defaults). */
async function builderConfig(project: string): Promise<Record<string, unknown>> {
  const { getConfig } = (await import('app-builder-lib/out/util/config/config.js')) as unknown as {
    getConfig(dir: string, file: string | null, options: unknown): Promise<Record<string, unknown>>;
  };
  return getConfig(project, null, null);
}

/** electron-builder's own default `deb.depends` (what a `depends` list replaces). */
async function defaultDebDepends(): Promise<string[]> {
  const mod = (await import('app-builder-lib/out/targets/FpmTarget.js')) as unknown as {
    default: { default?: unknown; prototype: { getDefaultDepends(target: string): string[] } };
  };
  const FpmTarget = (mod.default.default ?? mod.default) as { prototype: { getDefaultDepends(t: string): string[] } };
  return FpmTarget.prototype.getDefaultDepends.call({}, 'deb');
}

/** A PNG's width, height, and whether every pixel is black (its alpha aside). */
function pngInfo(file: string): { width: number; height: number } {
  const b = readFileSync(file);
  expect(b.subarray(1, 4).toString('ascii'), file).toBe('PNG');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

const arg = (args: string[], flag: string) => args[args.indexOf(flag) + 1];
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  homepage?: string;
  author?: { name?: string; email?: string };
  desktopName?: string;
};

describe('installer configuration, as electron-builder reads it', () => {
  it('deb: a maintainer with an email, the homepage, the .desktop file named desktopName, icons at every hicolor size', async () => {
    const plan = await planDeb(ROOT);
    expect(arg(plan.args, '--maintainer')).toMatch(/^[^<>]+ <[^@\s]+@[^@\s]+\.[a-z]+>$/);
    expect(arg(plan.args, '--url')).toBe(pkg.homepage);
    expect(pkg.author?.email).toMatch(/^[^@\s]+@[^@\s]+$/);

    // The .desktop file is installed under package.json's desktopName (Electron reads that
    // name to match its windows to the launcher entry) and names its window class.
    expect(pkg.desktopName).toMatch(/\.desktop$/);
    const desktopTarget = plan.args.find((a) => a.endsWith('.desktop') && a.includes('=/usr/share/applications/'));
    expect(desktopTarget?.split('=/usr/share/applications/')[1]).toBe(pkg.desktopName);
    expect(plan.desktopFile).toMatch(/^Exec=.*\/blocklift %U$/m);
    expect(plan.desktopFile).toMatch(new RegExp(`^StartupWMClass=${pkg.desktopName!.replace(/\.desktop$/, '')}$`, 'm'));

    // One PNG per hicolor size folder, each really that size.
    const icons = plan.args
      .filter((a) => a.includes('=/usr/share/icons/hicolor/'))
      .map((a) => {
        const [file, target] = a.split('=');
        return { file: file!, size: /hicolor\/(\d+)x\1\//.exec(target!)?.[1] };
      });
    expect(icons.map((i) => Number(i.size)).sort((a, b) => a - b)).toEqual([16, 24, 32, 48, 64, 128, 256, 512]);
    for (const i of icons) expect(pngInfo(i.file)).toEqual({ width: Number(i.size), height: Number(i.size) });
  }, 60_000);

  it("deb: depends holds electron-builder's whole default list (GTK, xdg-utils, libsecret for safeStorage…)", async () => {
    const config = await builderConfig(ROOT);
    const depends = (config.deb as { depends?: string[] } | undefined)?.depends ?? null;
    const defaults = await defaultDebDepends();
    expect(defaults).toContain('libgtk-3-0');
    // A `depends` list replaces the defaults: it must repeat every one of them.
    if (depends !== null) expect(depends).toEqual(expect.arrayContaining(defaults));
    expect(depends ?? defaults).toContain('libsecret-1-0');
  });

  it('deb: electron-builder refuses a project whose author has no email and no maintainer is set', async () => {
    const copy = tempDir('bl-deb-copy-');
    const noEmail = { ...pkg, author: { name: pkg.author?.name ?? 'x' } };
    writeFileSync(path.join(copy, 'package.json'), JSON.stringify(noEmail, null, 2));
    const yml = readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8').replace(/^ {2}maintainer: .*\n/m, '');
    writeFileSync(path.join(copy, 'electron-builder.yml'), yml);
    for (const d of ['assets', 'node_modules', 'bin']) symlinkSync(path.join(ROOT, d), path.join(copy, d));
    cpSync(path.join(ROOT, 'package-lock.json'), path.join(copy, 'package-lock.json'));
    // afterPack: electron-builder resolves a hook's path from the working directory (this checkout).
    await expect(planDeb(copy, { afterPack: null })).rejects.toThrow(/author.*email|email.*author/i);
  }, 60_000);

  it('macOS and Windows: a 1024 px app icon; a 16 pt template image (16 and 32 px, black on transparent) for the menu bar', () => {
    expect(pngInfo(path.join(ROOT, 'assets/icon.png'))).toEqual({ width: 1024, height: 1024 });
    for (const [name, size] of [
      ['trayTemplate.png', 16],
      ['trayTemplate@2x.png', 32],
    ] as const) {
      const file = path.join(ROOT, 'assets', name);
      expect(pngInfo(file)).toEqual({ width: size, height: size });
      const { rgba } = decodePng(file);
      let opaque = 0;
      for (let i = 0; i < rgba.length; i += 4) {
        if (rgba[i + 3] === 0) continue;
        opaque++;
        // A template image is black and alpha only: macOS tints it for light and dark bars.
        expect([rgba[i], rgba[i + 1], rgba[i + 2]]).toEqual([0, 0, 0]);
      }
      expect(opaque).toBeGreaterThan(size * 2);
    }
  });

  it("a release leaves the project's node_modules as npm built it: no npmRebuild in place; afterPack builds better-sqlite3 for Electron into the package", async () => {
    const config = await builderConfig(ROOT);
    expect(config.npmRebuild).toBe(false);
    expect(config.afterPack).toBe('./bin/after-pack.mjs');
    const hook = (await import(path.join(ROOT, 'bin/after-pack.mjs'))) as { default: unknown };
    expect(typeof hook.default).toBe('function');
  });

  it("Windows: the app's AppUserModelID is electron-builder's appId (notifications are matched to the installed shortcut by it)", async () => {
    const config = await builderConfig(ROOT);
    expect(APP_USER_MODEL_ID).toBe(config.appId);
  });
});

/** RGBA pixels of an 8-bit RGBA, non-interlaced PNG (what assets/make-icon.mjs writes). */
function decodePng(file: string): { width: number; rgba: Buffer } {
  const b = readFileSync(file);
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  expect([b[24], b[25], b[28]], `${file}: 8-bit RGBA, not interlaced`).toEqual([8, 6, 0]);
  const idat: Buffer[] = [];
  for (let o = 8; o < b.length;) {
    const len = b.readUInt32BE(o);
    if (b.toString('ascii', o + 4, o + 8) === 'IDAT') idat.push(b.subarray(o + 8, o + 8 + len));
    o += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 4;
  const rgba = Buffer.alloc(stride * height);
  const prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = rgba.subarray(y * stride, (y + 1) * stride);
    const above = y ? rgba.subarray((y - 1) * stride, y * stride) : prev;
    for (let i = 0; i < stride; i++) {
      const a = i >= 4 ? out[i - 4]! : 0;
      const up = above[i]!;
      const c = i >= 4 ? above[i - 4]! : 0;
      const p = a + up - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - up);
      const pc = Math.abs(p - c);
      const predictor = [0, a, up, (a + up) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? up : c][filter]!;
      out[i] = (line[i]! + predictor) & 0xff;
    }
  }
  return { width, rgba };
}
