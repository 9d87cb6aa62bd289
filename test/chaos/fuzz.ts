import http from 'node:http';
import net from 'node:net';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { prng, waitFor, type ChaosContext } from './context';
import { startEmulatorChild } from './emulator-child';
import { MARK, baseRequest, mutate, type Pools, type Req } from './fuzz-inputs';

interface Verdict {
  status: number;
  problem?: string;
  json?: Record<string, unknown>;
}

function send(agent: http.Agent, port: number, q: Req): Promise<Verdict> {
  return new Promise((resolve) => {
    let headers: Record<string, string | number> = { ...q.headers };
    if (q.method !== 'GET' && q.method !== 'HEAD' && headers['Transfer-Encoding'] !== 'chunked')
      headers['Content-Length'] = q.body.length;
    if (headers['Transfer-Encoding'] === 'chunked')
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'Content-Length'));
    let req: http.ClientRequest;
    try {
      req = http.request(
        { host: '127.0.0.1', port, method: q.method, path: q.path, headers, agent, timeout: 30_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => resolve({ status: res.statusCode ?? 0, problem: `reply cut: ${e.message}` }));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const body = Buffer.concat(chunks);
            if (status >= 500 && status < 600 && status !== 579)
              return resolve({ status, problem: `status ${status}: ${body.toString('utf8', 0, 300)}` });
            if (q.method === 'HEAD' || status < 400) {
              let json: Record<string, unknown> | undefined;
              try {
                json =
                  status === 200 && q.method !== 'HEAD'
                    ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>)
                    : undefined;
              } catch {
                json = undefined;
              }
              return resolve({ status, json });
            }
            let o: unknown;
            try {
              o = JSON.parse(body.toString('utf8'));
            } catch {
              return resolve({
                status,
                problem: `status ${status} without a JSON body: ${JSON.stringify(body.toString('utf8', 0, 200))}`,
              });
            }
            const rec = o as Record<string, unknown> | null;
            const says =
              rec && typeof rec === 'object' && (typeof rec.message === 'string' || typeof rec.error === 'string');
            resolve(
              says
                ? { status }
                : { status, problem: `status ${status} whose JSON does not say why: ${body.toString('utf8', 0, 200)}` },
            );
          });
        },
      );
    } catch (e) {
      // node:http refuses some headers or paths before sending (invalid characters): not an input the server saw.
      resolve({ status: -1, problem: undefined, json: { refusedLocally: (e as Error).message } });
      return;
    }
    req.on('timeout', () => req.destroy(new Error('no reply in 30 s')));
    req.on('error', (e) => resolve({ status: 0, problem: `no reply: ${e.message}` }));
    req.end(q.method === 'GET' || q.method === 'HEAD' ? undefined : q.body);
  });
}

/** A few requests below HTTP: the parser must refuse them and the server live on. */
const RAW = [
  'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  'POST /mkblk/4/0 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  'BREW /coffee HTCPCP/1.0\r\n\r\n',
  `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  'GET / HTTP/1.1\r\n' + 'X: y\r\n'.repeat(5000) + '\r\n',
  '\u0000\u0001\u0002\r\n\r\n',
  'HEAD /dl/local/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: weird\r\n\r\n',
  'POST /mkblk/4194304/0 HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc',
];

function raw(port: number, text: string): Promise<void> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.end(text));
    s.on('data', () => undefined);
    s.setTimeout(5000, () => s.destroy());
    s.on('close', () => resolve());
    s.on('error', () => resolve());
  });
}

async function listAll(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    out.push(path.join(e.parentPath, e.name));
  return out;
}

/**
 * Section 4: random and mutated requests against every emulator route, loopback only,
 * bounded in count and time. Each starts from a valid request (signed tokens, real ctxs
 * harvested from earlier replies) and gets 0–3 mutations (path segment, header, body,
 * method). Claims: no crash; every reply under 500 (the protocol's 579 and 6xx excepted)
 * and every error a JSON object saying why (`message` or `error`); nothing written outside
 * the data folder; the emulator stops on SIGTERM with exit code 0 and its lock removed.
 */
export async function fuzzEmulator(ctx: ChaosContext): Promise<void> {
  const { rec } = ctx;
  const { requests, timeLimitMs } = ctx.params.fuzz;
  const sandbox = path.join(ctx.root, 'fuzz');
  const data = path.join(sandbox, 'data');
  const emu = await startEmulatorChild(ctx, data, 0);
  const port = emu.info.port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const pools: Pools = { ctxs: [], persistentIds: [], jobIds: [] };
  const problems = new Map<string, { n: number; example: string }>();
  const byRoute = new Map<string, number>();
  const byStatus = new Map<number, number>();
  let sent = 0;
  const end = Date.now() + timeLimitMs;
  let exited = false;
  void emu.proc.exited.then(() => (exited = true));
  const worker = async (w: number) => {
    const r = prng(ctx.seed * 1000 + w);
    while (sent < requests && Date.now() < end && !exited) {
      const i = sent++;
      const base = baseRequest(r, ctx, emu, pools);
      const q = r() < 0.25 ? base : mutate(r, base);
      if (i % 500 === 0) for (const t of RAW) await raw(port, t);
      const v = await send(agent, port, q);
      byRoute.set(base.route, (byRoute.get(base.route) ?? 0) + 1);
      byStatus.set(v.status, (byStatus.get(v.status) ?? 0) + 1);
      if (v.problem) {
        const key = `${q.method} ${base.route}: ${v.problem.slice(0, 80)}`;
        const p = problems.get(key) ?? {
          n: 0,
          example: `${q.method} ${q.path.slice(0, 200)} ${JSON.stringify(q.headers).slice(0, 300)} body ${q.body.length} B`,
        };
        p.n++;
        problems.set(key, p);
        ctx.errorsSeen.push(v.problem);
      }
      const j = v.json;
      if (j && typeof j.ctx === 'string' && typeof j.offset === 'number') {
        pools.ctxs.push({ ctx: j.ctx, offset: j.offset, batch: q.headers.UploadBatch ?? '' });
        if (pools.ctxs.length > 200) pools.ctxs.shift();
      }
      if (j && typeof j.persistentId === 'string') pools.persistentIds.push(j.persistentId);
      if (j && typeof j.jobId === 'string') pools.jobIds.push(j.jobId);
    }
  };
  try {
    await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
  } finally {
    agent.destroy();
  }
  // Requests node:http refused to send (invalid header characters) never reached the emulator.
  rec.report.inputsTried += sent - (byStatus.get(-1) ?? 0) + Math.ceil(sent / 500) * RAW.length;
  rec.note(
    `${sent} requests (+ ${Math.ceil(sent / 500) * RAW.length} raw) in ${((timeLimitMs - Math.max(0, end - Date.now())) / 1000).toFixed(1)} s, seed ${ctx.seed}; by route: ${[...byRoute].map(([k, v]) => `${k} ${v}`).join(', ')}`,
  );
  const statuses = [...byStatus].sort((a, b) => a[0] - b[0]);
  rec.note(
    `replies by status: ${statuses.map(([k, v]) => `${k === -1 ? 'refused by node before sending' : k} ${v}`).join(', ')}`,
  );
  for (const [k, p] of problems)
    rec.fail(`${p.n}× ${k} — e.g. ${p.example} (reproduce: npm run test:chaos -- --only fuzz --seed ${ctx.seed})`);
  if (exited) rec.fail(`the emulator exited during the fuzz: ${emu.proc.stderr().slice(-1000)}`);
  if (/internal error|at .*\.ts:\d+/.test(emu.proc.stderr()))
    rec.fail(`the emulator logged an internal error: ${emu.proc.stderr().slice(0, 1000)}`);
  const alive = await waitFor(
    async () => (await fetch(`${emu.info.adminUrl}/state`, { headers: { Authorization: 'Bearer chaos-admin' } })).ok,
    10_000,
  ).catch(() => false);
  if (!alive) rec.fail('the emulator does not answer after the fuzz');
  const { code, lockRemoved } = await emu.stop();
  if (code !== 0)
    rec.fail(`the emulator exited with ${code} on SIGTERM after the fuzz: ${emu.proc.stderr().slice(-500)}`);
  if (!lockRemoved) rec.fail('emulator.lock stayed behind after SIGTERM');
  const outside = (await listAll(sandbox)).filter((f) => f !== data && !f.startsWith(`${data}${path.sep}`));
  const marked = (await listAll(ctx.root)).filter((f) => path.basename(f).includes(MARK));
  if (outside.length) rec.fail(`written outside the data folder: ${outside.slice(0, 10).join(', ')}`);
  if (marked.length) rec.fail(`fuzzed key names became files: ${marked.slice(0, 10).join(', ')}`);
}
