import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { net, protocol } from 'electron';
import type { DoorBackend } from '../service/door-backend';
import { doorCsp } from '../service/door-csp';
import { APP_SCHEME } from './ipc';

/** Must run before the app is ready: app:// is a standard, secure scheme (origin app://renderer). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** The file of the renderer folder a request names, or null when it would leave the folder. */
export function rendererFile(rendererDir: string, requestUrl: string): string | null {
  const { pathname } = new URL(requestUrl);
  const rel = decodeURIComponent(pathname).replace(/^\/+/, '') || 'index.html';
  const file = path.resolve(rendererDir, rel);
  return file.startsWith(path.resolve(rendererDir) + path.sep) ? file : null;
}

/** Serves dist/renderer at app://renderer/ with the CSP header on every reply (service/door-csp.ts: a page's names the accounts' media origins). */
export function serveRenderer(rendererDir: string, backend: Pick<DoorBackend, 'accounts'>): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = rendererFile(rendererDir, request.url);
    if (!file) return new Response('not found', { status: 404 });
    const reply = await net.fetch(pathToFileURL(file).href);
    const headers = new Headers(reply.headers);
    // The page is the one HTML file (its type comes from its name, as Electron gives it).
    headers.set('Content-Security-Policy', await doorCsp(backend, file.endsWith('.html')));
    headers.set('X-Content-Type-Options', 'nosniff');
    return new Response(reply.body, { status: reply.status, headers });
  });
}
