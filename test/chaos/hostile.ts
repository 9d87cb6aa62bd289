import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import type net from 'node:net';
import path from 'node:path';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';
import type { ChaosContext } from './context';
import { countRetries, downloader, openEngineRig, settleAll, verifyDone } from './rig';

/**
 * A scripted loopback server in front of the emulator: it forwards requests, and for one
 * call kind answers in a hostile way instead (or corrupts the real reply). In `once` mode
 * only the first two such calls are hostile, then everything is forwarded: the transfer
 * must retry and finish verified. In `always` mode every such call is hostile: the
 * transfer must fail with a code and a message; it is never marked done.
 */
type Call = 'mkblk' | 'bput' | 'mkfile';

interface Scenario {
  name: string;
  call: Call;
  /** Expected end in `once` mode; `always` mode always expects a clear failure, except when `alwaysDone`. */
  once: 'done' | 'failed';
  /** Needs the client's idle timeout to fire: run with a short one (else a long one, so load cannot fake a timeout). */
  needsTimeout?: boolean;
  alwaysDone?: boolean;
  /** Answers the hostile reply. `forward()` gets the emulator's real reply for corrupting. */
  act(
    res: http.ServerResponse,
    forward: () => Promise<{ status: number; body: Buffer }>,
    state: ProxyState,
  ): Promise<void>;
}

interface ProxyState {
  /** Real ctxs returned by mkblk, by block order. */
  ctxByBlock: Map<number, string>;
  blockOrder: number;
  timers: Set<NodeJS.Timeout>;
}

const json = (res: http.ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
};

async function corrupt(
  res: http.ServerResponse,
  forward: () => Promise<{ status: number; body: Buffer }>,
  edit: (o: Record<string, unknown>) => void,
): Promise<void> {
  const r = await forward();
  const o = JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;
  if (r.status === 200) edit(o);
  json(res, r.status, JSON.stringify(o));
}

/** Writes `chunk` every `everyMs` until `left` runs out (or forever when undefined), then ends. */
function drip(res: http.ServerResponse, st: ProxyState, everyMs: number, parts: string[] | undefined): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.flushHeaders();
  const t = setInterval(() => {
    if (res.destroyed) return stop();
    if (parts === undefined) res.write(' ');
    else if (parts.length) res.write(parts.shift()!);
    else {
      res.end();
      stop();
    }
  }, everyMs);
  st.timers.add(t);
  function stop() {
    clearInterval(t);
    st.timers.delete(t);
  }
}

export const SCENARIOS: Scenario[] = [
  { name: 'truncated-json', call: 'mkblk', once: 'done', act: async (res) => json(res, 200, '{"ctx":"abc","checks') },
  {
    name: 'wrong-crc32',
    call: 'bput',
    once: 'done',
    act: (res, fwd) => corrupt(res, fwd, (o) => void (o.crc32 = ((o.crc32 as number) ^ 0x5a5a) >>> 0)),
  },
  {
    name: 'wrong-offset',
    call: 'bput',
    once: 'done',
    act: (res, fwd) => corrupt(res, fwd, (o) => void (o.offset = (o.offset as number) + 4096)),
  },
  {
    name: 'ctx-of-another-block',
    call: 'mkblk',
    once: 'done',
    act: (res, fwd, st) =>
      corrupt(res, fwd, (o) => {
        const other = [...st.ctxByBlock.entries()].find(([b]) => b !== st.blockOrder);
        o.ctx = other ? other[1] : `${String(o.ctx).slice(0, -4)}AAAA`;
      }),
  },
  {
    name: 'html-200',
    call: 'mkfile',
    once: 'done',
    act: async (res) => {
      const body = '<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>';
      res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    },
  },
  {
    name: 'wrong-hash',
    call: 'mkfile',
    once: 'failed',
    act: (res, fwd) => corrupt(res, fwd, (o) => void (o.hash = 'FhXhSXqPHmVv9KyBQWvwWCiIGpzk')),
  },
  {
    name: 'endless-body',
    call: 'bput',
    once: 'done',
    act: async (res, _fwd, st) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const block = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(block));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
      void st;
    },
  },
  {
    name: 'slow-drip',
    call: 'mkfile',
    once: 'done',
    alwaysDone: true,
    act: async (res, fwd, st) => {
      const r = await fwd();
      drip(res, st, 60, r.body.toString('utf8').match(/.{1,12}/gs) ?? []);
    },
  },
  {
    name: 'silent-reply',
    needsTimeout: true,
    call: 'mkblk',
    once: 'done',
    act: async (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"ctx":');
    },
  },
  {
    name: 'endless-drip',
    call: 'mkfile',
    once: 'done',
    needsTimeout: true,
    act: async (res, _f, st) => drip(res, st, 300, undefined),
  },
];

interface Proxy {
  url: string;
  hits: () => number;
  close(): Promise<void>;
}

async function startProxy(target: string, sc: Scenario, mode: 'once' | 'always'): Promise<Proxy> {
  const st: ProxyState = { ctxByBlock: new Map(), blockOrder: -1, timers: new Set() };
  const sockets = new Set<net.Socket>();
  let hits = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const forward = () => relay(target, req, body);
      const call = (req.url ?? '').split('/')[1] as Call;
      const m = /^\/mkblk\/\d+\/(\d+)/.exec(req.url ?? '');
      st.blockOrder = m ? Number(m[1]) : -1;
      const hostile = call === sc.call && (mode === 'always' || hits < 2);
      const run = async () => {
        if (!hostile) {
          const r = await forward();
          if (m && r.status === 200)
            st.ctxByBlock.set(st.blockOrder, (JSON.parse(r.body.toString()) as { ctx: string }).ctx);
          res.writeHead(r.status, { 'Content-Type': 'application/json', 'Content-Length': r.body.length });
          res.end(r.body);
          return;
        }
        hits++;
        await sc.act(res, forward, st);
      };
      run().catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((r) => {
        for (const t of st.timers) clearInterval(t);
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

function relay(target: string, req: http.IncomingMessage, body: Buffer): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    const out = http.request(`${target}${req.url}`, { method: req.method, headers, agent: false }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => resolve({ status: r.statusCode ?? 0, body: Buffer.concat(chunks) }));
      r.on('error', reject);
    });
    out.on('error', reject);
    out.end(body);
  });
}

/** How long one scenario may take before its transfer counts as hanging. */
const SCENARIO_LIMIT_MS = 150_000;

async function runScenario(ctx: ChaosContext, emu: TestEmulator, sc: Scenario, mode: 'once' | 'always', file: string) {
  const { rec } = ctx;
  const dir = path.join(ctx.root, 'hostile', `${sc.name}-${mode}`);
  await mkdir(dir, { recursive: true });
  const proxy = await startProxy(emu.uploadUrl, sc, mode);
  const rig = openEngineRig(ctx, {
    dir,
    uploadUrl: proxy.url,
    timeoutMs: sc.needsTimeout ? 3000 : 15_000,
    now: () => emu.clock.now(),
    engine: { chunkBytes: 1024 * 1024, backoff: { baseDelayMs: 10, maxDelayMs: 60 } },
  });
  const states: string[] = [];
  rig.engine.onTransferChange((s) => states.push(s.state));
  const reproduce = `reproduce: npm run test:chaos -- --only hostile (scenario ${sc.name}, ${mode})`;
  try {
    const [id] = rig.engine.enqueue([
      {
        accountId: rig.accountId,
        bucket: emu.bucket,
        key: `hostile/${sc.name}-${mode}`,
        localPath: file,
        source: 'manual',
        options: { conflict: 'overwrite' },
      },
    ]);
    const [snap] = await settleAll(rig.engine, [id!], SCENARIO_LIMIT_MS);
    rec.report.inputsTried += proxy.hits();
    rec.fault(`hostile ${sc.name}`, proxy.hits());
    countRetries(ctx, rig.db);
    if (snap!.lastError) ctx.errorsSeen.push(snap!.lastError.message);
    const expect = mode === 'once' || sc.alwaysDone ? (sc.once as string) : 'failed';
    if (!['done', 'failed'].includes(snap!.state)) {
      rec.fail(
        `${sc.name} (${mode}): the transfer is still "${snap!.state}" after ${SCENARIO_LIMIT_MS / 1000} s, neither retried to the end nor failed; ${reproduce}`,
      );
      return;
    }
    if (snap!.state === 'done') {
      const download = downloader(emu.mgrUrl, (key) => emu.objectUrl(emu.bucket, key));
      const v = await verifyDone(rig, snap!, download);
      if (!v.ok) rec.fail(`${sc.name} (${mode}): done but not verified: ${v.why}; ${reproduce}`);
      else rec.verified(v.bytes);
    } else if (!snap!.lastError?.code || !snap!.lastError.message) {
      rec.fail(`${sc.name} (${mode}): failed without a code and message; ${reproduce}`);
    } else if (states.includes('done')) {
      rec.fail(`${sc.name} (${mode}): was marked done before it failed; ${reproduce}`);
    }
    if (snap!.state !== expect)
      rec.fail(
        `${sc.name} (${mode}): expected ${expect}, ended ${snap!.state} (${JSON.stringify(snap!.lastError)}); ${reproduce}`,
      );
    else
      rec.note(
        `${sc.name} (${mode}, ${proxy.hits()} hostile replies): ${snap!.state}${snap!.lastError ? ` — ${snap!.lastError.code}: ${snap!.lastError.message}` : ''}`,
      );
  } finally {
    await rig.close();
    await proxy.close();
  }
}

/** Section 3: the engine against a hostile server, every scenario in both modes, in parallel. */
export async function hostileServer(ctx: ChaosContext): Promise<void> {
  const dir = path.join(ctx.root, 'hostile');
  await mkdir(dir, { recursive: true });
  const emu = await startTestEmulator({
    dataDir: path.join(dir, 'emulator'),
    accessKey: ctx.accessKey,
    secretKey: ctx.secretKey,
  });
  try {
    // Two blocks (the second short), several chunks: every call kind is met more than once.
    const file = path.join(dir, 'payload.bin');
    await writeFile(file, randomBytes(Math.max(ctx.params.hostile.fileBytes, 4 * 1024 * 1024 + 17)));
    // Those with a short idle timeout run after the others, on a quiet emulator: under load
    // an honest reply can be slower than their timeout, and that would not be the hostile one.
    const phase = (short: boolean) =>
      Promise.all(
        SCENARIOS.filter((sc) => Boolean(sc.needsTimeout) === short).flatMap((sc) =>
          (['once', 'always'] as const).map((mode) => runScenario(ctx, emu, sc, mode, file)),
        ),
      );
    await phase(false);
    await phase(true);
  } finally {
    await emu.close();
  }
}
