import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../../src-main/engine/scheduler';
import { RemoteTokenProvider } from '../../../src-main/engine/tokens';
import { InFlightWindow } from '../../../src-main/engine/window';
import { UploadClient } from '../../../src-main/protocol/client';
import { httpCall } from '../../../src-main/protocol/http';
import { proxyFor, SOCKETS_PER_ROUTE, TunnelAgent } from '../../../src-main/protocol/proxy';

const P = 'http://proxy.example:3128/';

describe('proxyFor', () => {
  const sys = (env: Record<string, string>) => ({ mode: 'system' as const, env });
  it('none and url', () => {
    expect(proxyFor(new URL('http://up.example.com'), { mode: 'none' })).toBeUndefined();
    expect(proxyFor(new URL('http://127.0.0.1:9'), { mode: 'url', url: P })?.href).toBe(P);
    expect(() => proxyFor(new URL('http://a'), { mode: 'url', url: 'socks5://u:pw@x:1' })).toThrow(/http:\/\//);
  });
  it('system: the proxy of the target scheme, lower case first, NO_PROXY and loopback direct', () => {
    const env = { HTTP_PROXY: P, https_proxy: 'tls-proxy:8080', NO_PROXY: 'internal.corp, .lan,*.dev, only.port:8443' };
    expect(proxyFor(new URL('http://up.example.com'), sys(env))?.href).toBe(P);
    expect(proxyFor(new URL('https://up.example.com'), sys(env))?.href).toBe('http://tls-proxy:8080/');
    for (const direct of ['http://internal.corp', 'http://a.internal.corp', 'http://nas.lan', 'http://x.dev'])
      expect(proxyFor(new URL(direct), sys(env)), direct).toBeUndefined();
    expect(proxyFor(new URL('https://only.port:8443'), sys(env))).toBeUndefined();
    expect(proxyFor(new URL('https://only.port'), sys(env))).toBeDefined();
    expect(proxyFor(new URL('http://notinternal.corp'), sys(env))).toBeDefined();
    for (const loop of ['http://localhost:1', 'http://127.0.0.1:2', 'http://[::1]:3'])
      expect(proxyFor(new URL(loop), sys(env)), loop).toBeUndefined();
    expect(proxyFor(new URL('http://up.example.com'), sys({ ...env, no_proxy: '*' }))).toBeUndefined();
    expect(proxyFor(new URL('http://up.example.com'), sys({}))).toBeUndefined();
  });
});

describe('a proxy setting that cannot be used', () => {
  it('fails the call as a network error naming it, for the clients and the token URL', async () => {
    const proxy = { mode: 'url' as const, url: 'https://proxy.example:3128' };
    const client = new UploadClient({ uploadUrl: 'http://127.0.0.1:9', proxy });
    const mkblk = client.mkblk({ token: 't', batch: 'b', chunk: new Uint8Array([1]), blockSize: 1, blockOrder: 0 });
    await expect(mkblk).rejects.toMatchObject({ kind: 'network', message: expect.stringContaining('http://') });
    client.close();
    const tokens = new RemoteTokenProvider('http://127.0.0.1:9/token', { proxy });
    const got = tokens.get({ bucket: 'b', key: 'k', overwrite: false });
    await expect(got).rejects.toMatchObject({ kind: 'network', endpoint: 'token' });
    tokens.close();
  });
});

describe('TunnelAgent', () => {
  it('reaches an https:// server through CONNECT, checking its certificate, with the proxy credentials', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bl-tls-'));
    const [key, cert] = [path.join(dir, 'k.pem'), path.join(dir, 'c.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const tlsOpts = { key: readFileSync(key), cert: readFileSync(cert) };
    rmSync(dir, { recursive: true, force: true });
    const target = https.createServer(tlsOpts, (_req, res) => res.end('secret-free hello'));
    const seen: string[] = [];
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket) => {
      seen.push(`${req.url} ${req.headers['proxy-authorization'] ?? ''}`);
      const [host, port] = (req.url ?? '').split(':');
      const up = net.connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 OK\r\n\r\n');
        up.pipe(socket).pipe(up);
      });
      up.on('error', () => socket.destroy());
      socket.on('error', () => up.destroy());
    });
    const listen = (s: net.Server) =>
      new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as net.AddressInfo).port)));
    const [tp, pp] = [await listen(target), await listen(proxy)];
    const agent = new TunnelAgent(new URL(`http://me:p%40ss@127.0.0.1:${pp}`), { ca: tlsOpts.cert });
    try {
      const url = new URL(`https://127.0.0.1:${tp}/x`);
      const reply = await httpCall({ endpoint: 'download', method: 'GET', url, idleTimeoutMs: 10_000, agent });
      expect(reply.body.toString()).toBe('secret-free hello');
      expect(seen).toEqual([`127.0.0.1:${tp} Basic ${Buffer.from('me:p@ss').toString('base64')}`]);
      // A server the agent does not trust is refused, through the tunnel as directly.
      const untrusting = new TunnelAgent(new URL(`http://127.0.0.1:${pp}`));
      const refused = httpCall({ endpoint: 'download', method: 'GET', url, idleTimeoutMs: 10_000, agent: untrusting });
      await expect(refused).rejects.toMatchObject({ kind: 'network' });
      untrusting.destroy();
    } finally {
      agent.destroy();
      target.closeAllConnections();
      proxy.closeAllConnections();
      await Promise.all([target, proxy].map((s) => new Promise((r) => s.close(r))));
    }
  });
});

describe('sockets per route', () => {
  it("lets the engine's widest window out at once: every request reaches the service, none waits in the agent", async () => {
    const widest = DEFAULT_LIMITS.maxRequests * new InFlightWindow().maxFactor;
    expect(SOCKETS_PER_ROUTE).toBeGreaterThanOrEqual(widest);
    // A service that holds each mkblk until `widest` are in, then answers them all (after 8 s, each at once).
    let now = 0;
    let most = 0;
    const held: (() => void)[] = [];
    let late = false;
    const answerAll = () => held.splice(0).forEach((f) => f());
    const timer = setTimeout(() => ((late = true), answerAll()), 8000);
    const server = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        most = Math.max(most, ++now);
        held.push(() => {
          now--;
          const body = Buffer.concat(parts);
          res.setHeader('Content-Type', 'application/json');
          res.end(JSON.stringify({ ctx: 'c', checksum: '', crc32: zlib.crc32(body), offset: body.length }));
        });
        if (late || held.length >= widest) answerAll();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new UploadClient({ uploadUrl: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` });
    try {
      const chunk = new Uint8Array([1, 2, 3]);
      const calls = Array.from({ length: widest }, () =>
        client.mkblk({ token: 't', batch: 'b', chunk, blockSize: 3, blockOrder: 0 }),
      );
      await Promise.all(calls);
      expect(most).toBe(widest);
    } finally {
      clearTimeout(timer);
      client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
