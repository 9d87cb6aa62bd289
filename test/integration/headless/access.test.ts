import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DoorConfigError, startHeadlessDoor, type HeadlessDoor } from '../../../src-main/headless/server';
import { API_METHODS, type Result } from '../../../src-main/shared/contract';
import { APP_CSP } from '../../../src-main/shared/csp';
import { API_HTTP_PREFIX, API_WS_PATH, TOKEN_COOKIE } from '../../../src-main/shared/wire';
import { AppService } from '../../../src-main/service/app-service';

/** Opens a WebSocket to the door; resolves with the upgrade's HTTP status (101 when accepted). */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('error', (e) => reject(e));
  });
}

describe('headless door access', () => {
  let tmp = '';
  let service: AppService;
  let door: HeadlessDoor;
  let wsUrl = '';

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'bl-door-access-'));
    const rendererDir = path.join(tmp, 'renderer');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(rendererDir);
    writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Blocklift test page</title>');
    service = await AppService.open({ dataDir: path.join(tmp, 'data'), door: { door: 'headless' } });
    door = await startHeadlessDoor({
      backend: service,
      version: 'test',
      rendererDir,
      stagingDir: path.join(tmp, 'data', 'staging'),
      notificationHandler: service.notificationHandler,
    });
    wsUrl = `${door.url.replace('http:', 'ws:')}${API_WS_PATH}`;
  });

  afterAll(async () => {
    await door?.close();
    await service?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 and prints a URL carrying the token', () => {
    expect(door.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(door.loginUrl).toBe(`${door.url}/?token=${door.token}`);
    expect(door.token.length).toBeGreaterThanOrEqual(40);
  });

  it('a browser opening the page without the token reads what to do, as a page (a bookmark, a reload after a restart)', async () => {
    const res = await fetch(`${door.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/); // the pages' own
    const html = await res.text();
    expect(html).toContain('open the address that blocklift serve printed');
    expect(html).not.toContain('"ok":false');
  });

  it('answers 401 to the page, the API and unknown paths without the token', async () => {
    for (const [p, method] of [
      ['/', 'GET'],
      ['/index.html', 'GET'],
      [`${API_HTTP_PREFIX}app.status`, 'POST'],
      ['/nowhere', 'GET'],
    ] as const) {
      const res = await fetch(`${door.url}${p}`, { method });
      expect(res.status, p).toBe(401);
      expect(res.headers.get('content-type'), p).toMatch(/^application\/json/);
      const body = (await res.json()) as Result<never>;
      expect(body, p).toMatchObject({ ok: false, error: { code: 'door-token-missing', params: {} } });
      expect(!body.ok && body.error.message, p).toMatch(/access token/);
    }
    const wrong = await fetch(`${door.url}/`, { headers: { cookie: `${TOKEN_COOKIE}=not-the-token` } });
    expect(wrong.status).toBe(401);
    const wrongQuery = await fetch(`${door.url}/?token=${door.token.slice(1)}x`, { redirect: 'manual' });
    expect(wrongQuery.status).toBe(401);
  });

  it('turns the token of the first visit into an HttpOnly SameSite=Strict cookie and drops it from the address', async () => {
    const first = await fetch(door.loginUrl, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toContain(`${TOKEN_COOKIE}=${door.token}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const page = await fetch(`${door.url}/`, { headers: { cookie: `${TOKEN_COOKIE}=${door.token}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Blocklift test page');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    // The one CSP of both doors (shared/csp.ts): no form of the app submits to a URL; media
    // (the review player's video) from the accounts' download domains: here the embedded
    // emulator's origin, without its path.
    const accounts = await service.accounts.list();
    const local = accounts.ok ? accounts.value.find((a) => a.isLocal)?.downloadDomain : undefined;
    expect(local).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/dl\//);
    const origin = new URL(local!).origin;
    expect(page.headers.get('content-security-policy')).toBe(`${APP_CSP}; media-src 'self' ${origin}`);
    expect(APP_CSP).toContain("form-action 'none'");
    const api = await fetch(`${door.url}${API_HTTP_PREFIX}app.status`, {
      method: 'POST',
      headers: { cookie: `${TOKEN_COOKIE}=${door.token}` },
    });
    expect(api.headers.get('content-security-policy')).toBe(APP_CSP);
  });

  it('serves every contract verb over HTTP POST with the token, and no other name', async () => {
    const auth = { authorization: `Bearer ${door.token}`, 'content-type': 'application/json' };
    for (const method of API_METHODS) {
      const res = await fetch(`${door.url}${API_HTTP_PREFIX}${method}`, { method: 'POST', headers: auth, body: '{}' });
      expect(res.status, method).toBe(200);
      const body = (await res.json()) as { ok: boolean };
      expect(typeof body.ok, method).toBe('boolean');
    }
    const unknown = await fetch(`${door.url}${API_HTTP_PREFIX}transfers.explode`, { method: 'POST', headers: auth });
    expect(unknown.status).toBe(404);
  });

  it('hands /notify/ to the notification receiver without the token (it checks the service signature instead)', async () => {
    const res = await fetch(`${door.url}/notify/fmgr`, {
      method: 'POST',
      headers: { authorization: 'QBox blocklift-local:not-a-signature', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'x', code: 0 }),
    });
    // The receiver's own JSON answer (here: no public base URL configured), not the door's 401.
    expect(res.headers.get('content-type')).toMatch(/json/);
    expect((await res.json()) as { error: string }).toHaveProperty('error');
    expect(res.status).not.toBe(401);
  });

  it('refuses a Host header that is not loopback (DNS rebinding) even with the token', async () => {
    const { request } = await import('node:http');
    const reply = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const req = request(
        `${door.url}/`,
        { headers: { host: `evil.example:${door.port}`, cookie: `${TOKEN_COOKIE}=${door.token}` } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(reply.status).toBe(403);
    expect(reply.type).toMatch(/^application\/json/);
    expect(JSON.parse(reply.body)).toMatchObject({
      ok: false,
      error: { code: 'door-host-refused', params: { host: `evil.example:${door.port}` } },
    });
  });

  it('accepts a WebSocket only with the token and the door’s own Origin', async () => {
    const own = door.url;
    const cookie = `${TOKEN_COOKIE}=${door.token}`;
    expect(await upgradeStatus(wsUrl, { origin: own, cookie })).toBe(101);
    expect(await upgradeStatus(wsUrl, { origin: own })).toBe(401);
    expect(await upgradeStatus(wsUrl, { origin: 'http://evil.example', cookie })).toBe(403);
    expect(await upgradeStatus(wsUrl, { cookie })).toBe(403);
  });

  it('answers a refused WebSocket upgrade with the JSON error envelope', async () => {
    const cookie = `${TOKEN_COOKIE}=${door.token}`;
    const refusedBody = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const ws = new WebSocket(wsUrl, { headers });
        ws.once('open', () => {
          ws.close();
          reject(new Error('the upgrade was accepted'));
        });
        ws.once('unexpected-response', (_req, res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body });
            ws.terminate();
          });
        });
        ws.once('error', (e) => reject(e));
      });
    const foreign = await refusedBody({ origin: 'http://evil.example', cookie });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({
      ok: false,
      error: { code: 'door-origin-refused', params: { origin: 'http://evil.example' } },
    });
    const noToken = await refusedBody({ origin: door.url });
    expect(noToken.status).toBe(401);
    expect(JSON.parse(noToken.body)).toMatchObject({ ok: false, error: { code: 'door-token-missing' } });
  });

  it('refuses to listen beyond loopback unless asked explicitly (--host)', async () => {
    const opts = {
      backend: service,
      version: 'test',
      rendererDir: path.join(tmp, 'renderer'),
      stagingDir: path.join(tmp, 'staging2'),
      host: '0.0.0.0',
    };
    await expect(startHeadlessDoor(opts)).rejects.toBeInstanceOf(DoorConfigError);
    const exposed = await startHeadlessDoor({ ...opts, exposed: true });
    try {
      const res = await fetch(`http://127.0.0.1:${exposed.port}/`);
      expect(res.status).toBe(401);
    } finally {
      await exposed.close();
    }
  });
});
