#!/usr/bin/env node
// `npm run dev`: the renderer from Vite's dev server (reloads on every save) next to the
// headless door (the app itself, rebuilt first when its sources changed). Open the door's
// URL printed below: it keeps the token in a cookie and sends the browser on to the dev
// server, whose /api requests (HTTP and WebSocket) Vite passes to the door.
import { createServer as createNetServer } from 'node:net';
import path from 'node:path';
import { buildMain, ROOT, staleReason } from './build-lib.mjs';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

if (staleReason('main')) await buildMain();
const [doorPort, vitePort] = [await freePort(), await freePort()];
const rendererUrl = `http://127.0.0.1:${vitePort}`;
process.env.BLOCKLIFT_DOOR_URL = `http://127.0.0.1:${doorPort}`;
const { createServer } = await import('vite');
const vite = await createServer({
  configFile: path.join(ROOT, 'vite.config.ts'),
  server: { port: vitePort, strictPort: true },
});
await vite.listen();
process.stderr.write(`blocklift dev: renderer with reloading at ${rendererUrl} (open the door's URL below)\n`);
const { main } = await import('../dist/cli/cli.mjs');
const code = await main([
  process.argv[0],
  'blocklift',
  'serve',
  '--port',
  String(doorPort),
  '--dev-renderer',
  rendererUrl,
  ...process.argv.slice(2),
]);
await vite.close();
process.exit(code);
