// Builds the renderer (src-renderer/) into dist/renderer, the folder the doors serve.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'src-renderer',
  base: './',
  plugins: [react()],
  build: { outDir: '../dist/renderer', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
});
