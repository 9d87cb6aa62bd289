import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import WebSocket from 'ws';
import { DoorConfigError, startHeadlessDoor } from '../../src-main/headless/server';
import { API_WS_PATH, TOKEN_COOKIE } from '../../src-main/shared/wire';
import { prng, type ChaosContext } from './context';
import { DoorInputs } from './door-inputs';
import { startServe, stopServe, type ServeChild } from './serve-rig';

/**
 * Section: the headless door (`blocklift serve`, a child) under hostile requests. First its
 * locks: no token, a wrong token, a foreign Host, a WebSocket from another Origin are all
 * refused, and the door refuses a non-loopback address unless told. Then seeded random and
 * mutated requests against /api/<method> and frames on /api/ws, with and without the token:
 * the process never dies, every 200 is a JSON Result, every other reply a 4xx (never a 5xx),
 * nothing is written outside the data folder, and SIGTERM still stops it with exit 0.
 */
export async function doorChaos(ctx: ChaosContext): Promise<void> {
  const dir = path.join(ctx.root, 'door');
  const data = path.join(dir, 'data');
  const play = path.join(dir, 'play');
  const home = path.join(dir, 'home');
  await mkdir(play, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(path.join(play, 'a.txt'), 'fuzz me\n');
  await refusesExposedWithoutFlag(ctx, dir);
  const env = { ...process.env, HOME: home };
  const s = await startServe(ctx, data, { cwd: play, env });
  const before = await snapshot(dir, data);
  try {
    await locks(ctx, s);
    const inputs = new DoorInputs(prng(ctx.seed + 29), play);
    const total = ctx.params.form === 'long' ? 20_000 : 1_500;
    await fuzzHttp(ctx, s, inputs, Math.floor(total * 0.85));
    await fuzzWs(ctx, s, inputs, Math.ceil(total * 0.15));
    const alive = await s.call('transfers.list', { limit: 1 });
    if (alive.status !== 200) ctx.rec.fail(`after the fuzz, transfers.list answered ${alive.status}`);
  } finally {
    const code = await stopServe(s);
    if (code !== 0)
      ctx.rec.fail(
        `blocklift serve exited ${code} on SIGTERM after the fuzz (reproduce: npm run test:chaos --${ctx.params.form === 'long' ? ' --long' : ''} --only door --seed ${ctx.seed}): ${s.proc.stderr().slice(-500)}`,
      );
  }
  const after = await snapshot(dir, data);
  for (const [f, size] of after)
    if (before.get(f) !== size) ctx.rec.fail(`the fuzzed door wrote ${f} outside its data folder (seed ${ctx.seed})`);
}

/** Every file under `dir` but those under `skip`, with its size. */
async function snapshot(dir: string, skip: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const f = path.join(e.parentPath, e.name);
    if (f === skip || f.startsWith(skip + path.sep) || !e.isFile()) continue;
    out.set(f, (await stat(f)).size);
  }
  return out;
}

/** `startHeadlessDoor` asked for 0.0.0.0 without `exposed` refuses before it touches the backend. */
async function refusesExposedWithoutFlag(ctx: ChaosContext, dir: string): Promise<void> {
  // The refusal comes first in startHeadlessDoor; no backend is reached, so none is started for it.
  const r = await startHeadlessDoor({
    backend: {} as never,
    version: 'chaos',
    rendererDir: dir,
    stagingDir: dir,
    host: '0.0.0.0',
    port: 0,
  }).then(
    async (door) => {
      await door.close();
      return 'listened';
    },
    (e: unknown) => (e instanceof DoorConfigError ? 'refused' : `threw ${String(e)}`),
  );
  ctx.rec.report.inputsTried++;
  if (r !== 'refused') ctx.rec.fail(`the door asked for 0.0.0.0 without --host ${r}`);
}

/** The door's locks, each expected to hold. */
async function locks(ctx: ChaosContext, s: ServeChild): Promise<void> {
  const { rec } = ctx;
  const url = `${s.base}/api/transfers.list`;
  // node:http, not fetch: fetch drops a Host header it is given.
  const post = (headers: Record<string, string>) =>
    new Promise<{ status: number; cors: boolean }>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } });
      req.once('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, cors: res.headers['access-control-allow-origin'] !== undefined });
      });
      req.once('error', reject);
      req.end('{}');
    });
  const port = new URL(s.base).port;
  const cases: Array<[string, Record<string, string>, number]> = [
    ['no token', {}, 401],
    ['a wrong token', { authorization: `Bearer ${s.token}x` }, 401],
    ['no token, from another Origin', { origin: 'http://evil.example' }, 401],
    ['a token in a cookie of another name', { cookie: `other=${s.token}` }, 401],
    [
      'the token but a foreign Host (DNS rebinding)',
      { authorization: `Bearer ${s.token}`, host: `evil.example:${port}` },
      403,
    ],
  ];
  for (const [what, headers, want] of cases) {
    const res = await post(headers);
    rec.report.inputsTried++;
    if (res.status !== want) rec.fail(`a request with ${what} answered ${res.status}, not ${want}`);
    if (res.cors) rec.fail(`a request with ${what} got a CORS allow header`);
  }
  const wsCases: Array<[string, Record<string, string>, boolean]> = [
    ['the cookie and its own Origin', { cookie: `${TOKEN_COOKIE}=${s.token}`, origin: s.base }, true],
    ['the cookie from another Origin', { cookie: `${TOKEN_COOKIE}=${s.token}`, origin: 'http://evil.example' }, false],
    ['no Origin', { cookie: `${TOKEN_COOKIE}=${s.token}` }, false],
    ['its own Origin and no token', { origin: s.base }, false],
  ];
  for (const [what, headers, open] of wsCases) {
    const opened = await new Promise<boolean>((resolve) => {
      const ws = new WebSocket(`${s.base.replace(/^http/, 'ws')}${API_WS_PATH}`, { headers });
      ws.once('open', () => {
        ws.close();
        resolve(true);
      });
      ws.once('error', () => resolve(false));
    });
    rec.report.inputsTried++;
    if (opened !== open) rec.fail(`a WebSocket with ${what} was ${opened ? 'opened' : 'refused'}`);
  }
  rec.note(`${cases.length + wsCases.length + 1} access checks: token, cookie, Host, Origin, non-loopback bind`);
}

/** Seeded requests, 8 at a time; claims: no 5xx, no dead process, a 200 is a JSON Result. */
async function fuzzHttp(ctx: ChaosContext, s: ServeChild, inputs: DoorInputs, n: number): Promise<void> {
  const { rec } = ctx;
  const statuses: Record<string, number> = {};
  let sent = 0;
  const one = async () => {
    const method = inputs.method();
    const body = inputs.body(method);
    const auth = inputs.auth();
    const headers: Record<string, string> = {};
    const type = inputs.contentType();
    if (type) headers['content-type'] = type;
    if (auth === 'token') headers.authorization = `Bearer ${s.token}`;
    if (auth === 'wrong') headers.cookie = `${TOKEN_COOKIE}=${s.token.slice(1)}`;
    const res = await fetch(`${s.base}/api/${method}`, { method: 'POST', headers, body }).catch((e: Error) => e);
    rec.report.inputsTried++;
    if (res instanceof Error) {
      rec.fail(`POST /api/${method.slice(0, 80)} got no reply: ${res.message} (seed ${ctx.seed})`);
      return;
    }
    const text = await res.text();
    const kind = `${res.status} ${(res.headers.get('content-type') ?? '-').split(';')[0]}`;
    statuses[kind] = (statuses[kind] ?? 0) + 1;
    if (res.status >= 500) rec.fail(`POST /api/${method.slice(0, 80)} answered ${res.status}: ${text.slice(0, 200)}`);
    // A URL the router cannot decode is a 400 before any route: it reaches nothing either.
    if (auth !== 'token' && res.status !== 401 && !(res.status === 400 && isJson(text)))
      rec.fail(`POST /api/${method.slice(0, 80)} without the token answered ${res.status}`);
    if (res.status === 200 && !isResult(text))
      rec.fail(`POST /api/${method.slice(0, 80)} answered 200 with no Result: ${text.slice(0, 200)}`);
    if (res.status === 404 && !isJson(text))
      rec.fail(`POST /api/${method.slice(0, 80)} answered a 404 that is not JSON`);
  };
  const workers = Array.from({ length: 8 }, async () => {
    while (sent < n && s.proc.child.exitCode === null) {
      sent++;
      await one();
    }
  });
  await Promise.all(workers);
  if (s.proc.child.exitCode !== null)
    rec.fail(`blocklift serve died during the HTTP fuzz: ${s.proc.stderr().slice(-500)}`);
  rec.note(`${sent} fuzzed POST /api/<method>; replies: ${JSON.stringify(statuses)}`);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isResult(text: string): boolean {
  if (!isJson(text)) return false;
  const r = JSON.parse(text) as { ok?: unknown; value?: unknown; error?: { code?: unknown; message?: unknown } };
  if (r.ok === true) return true;
  return r.ok === false && typeof r.error?.code === 'string' && typeof r.error.message === 'string';
}

/** Seeded frames on /api/ws, reconnecting when the door closes on a bad one; every frame it sends must be JSON. */
async function fuzzWs(ctx: ChaosContext, s: ServeChild, inputs: DoorInputs, n: number): Promise<void> {
  const { rec } = ctx;
  let sent = 0;
  let replies = 0;
  let closes = 0;
  while (sent < n && s.proc.child.exitCode === null) {
    const ws = new WebSocket(`${s.base.replace(/^http/, 'ws')}${API_WS_PATH}`, {
      headers: { cookie: `${TOKEN_COOKIE}=${s.token}`, origin: s.base },
    });
    await new Promise<void>((resolve) => {
      ws.on('message', (data) => {
        const text = String(data);
        const msg = isJson(text) ? (JSON.parse(text) as { type?: string; result?: unknown }) : undefined;
        if (!msg) rec.fail(`the WebSocket sent a frame that is not JSON: ${text.slice(0, 200)}`);
        else if (msg.type === 'reply') {
          replies++;
          if (!isResult(JSON.stringify(msg.result))) rec.fail(`a WebSocket reply is no Result: ${text.slice(0, 200)}`);
        }
      });
      ws.once('open', async () => {
        for (let i = 0; i < 50 && sent < n && ws.readyState === ws.OPEN; i++) {
          sent++;
          rec.report.inputsTried++;
          ws.send(inputs.frame(sent));
          await new Promise((r) => setTimeout(r, 2));
        }
        // Let the replies of this batch come back before closing.
        setTimeout(() => ws.close(), 200);
      });
      ws.once('close', () => {
        closes++;
        resolve();
      });
      ws.once('error', () => resolve());
    });
  }
  if (s.proc.child.exitCode !== null)
    rec.fail(`blocklift serve died during the WebSocket fuzz: ${s.proc.stderr().slice(-500)}`);
  rec.note(`${sent} fuzzed /api/ws frames over ${closes} connections; ${replies} replies`);
}
