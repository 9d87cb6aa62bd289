/**
 * The benchmark's baseline, no protocol and no hashing on either side:
 *   baseline.ts server <dir>         a plain node:http server writing each body to a file;
 *                                    prints its port
 *   baseline.ts client <port> <file> POSTs the file's bytes in 4 MiB bodies, 4 at a time,
 *                                    over keep-alive; prints `result {"elapsedMs":…,"bytes":…}`
 */
import http from 'node:http';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';

const BODY_BYTES = 4 * 1024 * 1024;
const PARALLEL = 4;
const [mode, a, b] = process.argv.slice(2);

if (mode === 'server') {
  let n = 0;
  const server = http.createServer((req, res) => {
    const out = createWriteStream(path.join(a!, `body-${n++ % 64}`));
    req.pipe(out);
    out.on('finish', () => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else if (mode === 'client') {
  const agent = new http.Agent({ keepAlive: true, maxSockets: PARALLEL });
  const fh = await open(b!, 'r');
  const size = (await fh.stat()).size;
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    const buf = Buffer.allocUnsafe(BODY_BYTES);
    for (;;) {
      const pos = next;
      if (pos >= size) return;
      next += BODY_BYTES;
      const { bytesRead } = await fh.read(buf, 0, Math.min(BODY_BYTES, size - pos), pos);
      await new Promise<void>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: Number(a),
            method: 'POST',
            path: '/',
            agent,
            headers: { 'Content-Length': bytesRead },
          },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(buf.subarray(0, bytesRead));
      });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  const elapsedMs = performance.now() - t0;
  await fh.close();
  agent.destroy();
  process.stdout.write(`result ${JSON.stringify({ elapsedMs, bytes: size })}\n`);
} else {
  process.stderr.write('usage: baseline.ts server <dir> | client <port> <file>\n');
  process.exit(2);
}
