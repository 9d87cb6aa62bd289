import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  notifyRetryDelayMs,
  parseNotifyUrl,
  NotifyUrlError,
  sendNotification,
} from '../../../src-main/emulator/notify';
import { verifyNotification } from '../../../src-main/protocol/tokens';

const signer = { accessKey: 'ak-n', secretKey: 'sk-n' };
let server: http.Server;
let base: string;
let answers: number[] = [];
let seen: { ok: boolean; type: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const fullUrl = `http://${req.headers.host}${req.url}`;
      seen.push({
        ok: verifyNotification(req.headers.authorization, signer.accessKey, signer.secretKey, fullUrl, body),
        type: req.headers['content-type'],
        body: body.toString(),
      });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('notifyRetryDelayMs', () => {
  it.each([
    [0, 100, 0],
    [1, 100, 100],
    [2, 100, 200],
    [3, 100, 400],
    [30, 1000, 60_000],
  ])('attempt %i with base %i waits %i ms', (attempt, base, want) => {
    expect(notifyRetryDelayMs(attempt, base)).toBe(want);
  });
});

describe('parseNotifyUrl', () => {
  it('accepts http and https, refuses others with a typed error', () => {
    expect(parseNotifyUrl('http://127.0.0.1:1').href).toBe('http://127.0.0.1:1/');
    expect(() => parseNotifyUrl('file:///etc/passwd')).toThrow(NotifyUrlError);
    expect(() => parseNotifyUrl('not a url')).toThrow(NotifyUrlError);
  });
});

describe('sendNotification', () => {
  it('signs the POST so the receiver verifies it, retrying until a 200', async () => {
    seen = [];
    answers = [500, 404, 200];
    const ok = await sendNotification(new URL(`${base}/hook?x=1`), Buffer.from('payload'), 'text/plain', signer, {
      attempts: 5,
      baseDelayMs: 5,
    });
    expect(ok).toBe(true);
    expect(seen.map((s) => s.ok)).toEqual([true, true, true]);
    expect(seen[0]).toMatchObject({ type: 'text/plain', body: 'payload' });
  });

  it('gives up after the configured attempts', async () => {
    seen = [];
    answers = [503, 503, 503, 200];
    const ok = await sendNotification(new URL(`${base}/hook`), Buffer.from('x'), 'application/json', signer, {
      attempts: 3,
      baseDelayMs: 5,
    });
    expect(ok).toBe(false);
    expect(seen).toHaveLength(3);
    answers = [];
  });

  it('counts a refused connection as a failed attempt and stops when aborted', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const deadPort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    expect(
      await sendNotification(new URL(`http://127.0.0.1:${deadPort}/`), Buffer.from('x'), 'text/plain', signer, {
        attempts: 2,
        baseDelayMs: 1,
      }),
    ).toBe(false);
    const ac = new AbortController();
    const p = sendNotification(
      new URL(`http://127.0.0.1:${deadPort}/`),
      Buffer.from('x'),
      'text/plain',
      signer,
      { attempts: 5, baseDelayMs: 10_000 },
      ac.signal,
    );
    setTimeout(() => ac.abort(), 20);
    expect(await p).toBe(false);
  });
});
