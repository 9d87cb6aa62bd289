// Draws the 512x512 app icon (a rounded tile with an upward chevron and three block bars)
// and writes it as a PNG with node:zlib, so the icon is reproducible without image tools.
import { deflateSync, crc32 } from 'node:zlib';
import { writeFileSync } from 'node:fs';
const N = 512,
  px = Buffer.alloc(N * N * 4);
const set = (x, y, r, g, b, a = 255) => {
  const i = (y * N + x) * 4;
  px[i] = r;
  px[i + 1] = g;
  px[i + 2] = b;
  px[i + 3] = a;
};
for (let y = 0; y < N; y++)
  for (let x = 0; x < N; x++) {
    const R = 96,
      cx = Math.min(Math.max(x, R), N - 1 - R),
      cy = Math.min(Math.max(y, R), N - 1 - R);
    if ((x - cx) ** 2 + (y - cy) ** 2 > R * R) continue;
    const t = y / N;
    set(x, y, Math.round(22 + 20 * t), Math.round(99 + 40 * t), Math.round(230 - 50 * t));
    const dx = Math.abs(x - 256),
      chev = y > 110 + dx * 0.9 && y < 170 + dx * 0.9 && dx < 150;
    const bar = [0, 1, 2].some((k) => y >= 260 + k * 62 && y < 300 + k * 62 && x >= 146 && x < 366);
    if (chev || bar) set(x, y, 255, 255, 255);
  }
const raw = Buffer.alloc((N * 4 + 1) * N);
for (let y = 0; y < N; y++) px.copy(raw, y * (N * 4 + 1) + 1, y * N * 4, (y + 1) * N * 4);
const chunk = (type, data) => {
  const l = Buffer.alloc(4);
  l.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const c = Buffer.alloc(4);
  c.writeUInt32BE(crc32(td));
  return Buffer.concat([l, td, c]);
};
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(N, 0);
ihdr.writeUInt32BE(N, 4);
ihdr[8] = 8;
ihdr[9] = 6;
writeFileSync(
  process.argv[2],
  Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]),
);
