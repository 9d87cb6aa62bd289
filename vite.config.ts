import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The renderer's build: src-renderer → dist/renderer, with relative asset URLs so the same
 * files load from the headless door (http://127.0.0.1:P/) and from Electron (file://).
 * `npm run dev` serves it with reloading and proxies /api (HTTP and WebSocket) to the
 * headless door started next to it (BLOCKLIFT_DOOR_URL).
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const door = process.env.BLOCKLIFT_DOOR_URL ?? 'http://127.0.0.1:7420';

export default defineConfig({
  root: path.join(here, 'src-renderer'),
  base: './',
  plugins: [react()],
  // Loaded from the local door or app://, never over a slow network: one large chunk is fine.
  build: { outDir: path.join(here, 'dist/renderer'), emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 4096 },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': { target: door, ws: true, changeOrigin: true } },
  },
});
