// Draws Blocklift's icons (an upward chevron over three block bars) and writes them as PNGs
// with node:zlib, so they are reproducible without image tools:
//   icon.png               1024×1024 app icon, the glyph on a rounded blue tile (electron-builder
//                          makes the macOS .icns, the Windows .ico and the Linux sizes from it:
//                          macOS wants 1024 for its 512 pt @2x, Windows at least 256)
//   icons/NxN.png          the Linux set (N = 16 … 512, the sizes of the hicolor theme, which has
//                          no 1024 folder): the .deb installs each into /usr/share/icons/hicolor
//   trayTemplate.png       16×16 macOS menu-bar image: the glyph alone, black on transparent
//   trayTemplate@2x.png    32×32 the same for Retina (a "Template" name makes macOS tint it)
// Usage: node assets/make-icon.mjs [folder]   (default: this folder)
import { deflateSync, crc32 } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = process.argv[2] ?? path.dirname(fileURLToPath(import.meta.url));
/** Samples per pixel side: edges are anti-aliased by coverage. */
const SS = 4;

// The artwork, in the 512-unit square of the original icon.
const TILE_RADIUS = 96;
const inTile = (u, v) => {
  const cx = Math.min(Math.max(u, TILE_RADIUS), 512 - TILE_RADIUS);
  const cy = Math.min(Math.max(v, TILE_RADIUS), 512 - TILE_RADIUS);
  return (u - cx) ** 2 + (v - cy) ** 2 <= TILE_RADIUS ** 2;
};
const inGlyph = (u, v) => {
  const dx = Math.abs(u - 256);
  const chevron = v > 110 + dx * 0.9 && v < 170 + dx * 0.9 && dx < 150;
  const bar = [0, 1, 2].some((k) => v >= 260 + k * 62 && v < 300 + k * 62 && u >= 146 && u < 366);
  return chevron || bar;
};

/** RGBA pixels of an n×n image; `shade(u, v)` gives [r, g, b, a] (0…255) at a point of the artwork. */
function render(n, toUnits, shade) {
  const px = Buffer.alloc(n * n * 4);
  for (let y = 0; y < n; y++)
    for (let x = 0; x < n; x++) {
      const acc = [0, 0, 0, 0];
      for (let sy = 0; sy < SS; sy++)
        for (let sx = 0; sx < SS; sx++) {
          const [u, v] = toUnits((x + (sx + 0.5) / SS) / n, (y + (sy + 0.5) / SS) / n);
          const [r, g, b, a] = shade(u, v);
          acc[0] += r * a;
          acc[1] += g * a;
          acc[2] += b * a;
          acc[3] += a;
        }
      const i = (y * n + x) * 4;
      const a = acc[3] / (SS * SS);
      px[i] = acc[3] ? Math.round(acc[0] / acc[3]) : 0;
      px[i + 1] = acc[3] ? Math.round(acc[1] / acc[3]) : 0;
      px[i + 2] = acc[3] ? Math.round(acc[2] / acc[3]) : 0;
      px[i + 3] = Math.round(a);
    }
  return px;
}

function png(n, px) {
  const raw = Buffer.alloc((n * 4 + 1) * n);
  for (let y = 0; y < n; y++) px.copy(raw, y * (n * 4 + 1) + 1, y * n * 4, (y + 1) * n * 4);
  const chunk = (type, data) => {
    const l = Buffer.alloc(4);
    l.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc32(td));
    return Buffer.concat([l, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(n, 0);
  ihdr.writeUInt32BE(n, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const appIcon = (u, v) => {
  if (!inTile(u, v)) return [0, 0, 0, 0];
  if (inGlyph(u, v)) return [255, 255, 255, 255];
  const t = v / 512;
  return [Math.round(22 + 20 * t), Math.round(99 + 40 * t), Math.round(230 - 50 * t), 255];
};
// The tray glyph fills its square: the glyph's box (u 106…406, v 110…446) with a small margin.
const TRAY_BOX = { u: 86, v: 104, size: 348 };
const trayGlyph = (u, v) => (inGlyph(u, v) ? [0, 0, 0, 255] : [0, 0, 0, 0]);

export const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512];
const outputs = [
  ['icon.png', 1024, (x, y) => [x * 512, y * 512], appIcon],
  ...LINUX_SIZES.map((n) => [`icons/${n}x${n}.png`, n, (x, y) => [x * 512, y * 512], appIcon]),
  ['trayTemplate.png', 16, (x, y) => [TRAY_BOX.u + x * TRAY_BOX.size, TRAY_BOX.v + y * TRAY_BOX.size], trayGlyph],
  ['trayTemplate@2x.png', 32, (x, y) => [TRAY_BOX.u + x * TRAY_BOX.size, TRAY_BOX.v + y * TRAY_BOX.size], trayGlyph],
];
mkdirSync(path.join(OUT, 'icons'), { recursive: true });
for (const [name, n, toUnits, shade] of outputs) writeFileSync(path.join(OUT, name), png(n, render(n, toUnits, shade)));
