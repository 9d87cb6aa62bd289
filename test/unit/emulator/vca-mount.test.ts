import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/emulator/clock';
import type { EmulatorContext, RouteHandler } from '../../../src-main/emulator/contracts';
import { HttpError, sendError } from '../../../src-main/emulator/http-util';
import { EMULATOR_MIGRATIONS } from '../../../src-main/emulator/migrations';
import { SqliteObjectStore } from '../../../src-main/emulator/object-store';
import { mountVca } from '../../../src-main/emulator/vca';
import { MgrClient } from '../../../src-main/protocol/client';
import { silentLogger } from '../../../src-main/base/logger';
import { openDatabase, type Db } from '../../../src-main/base/sqlite';

// mountVca's options that the emulator command does not expose (smartMediaDisabledBuckets),
// checked on a real SQLite database and object store behind a plain loopback listener that
// dispatches to the routes mountVca registers.

let dir: string;
let db: Db;
let server: http.Server;
let mgr: MgrClient;
const closeHooks: (() => void | Promise<void>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-vca-mount-'));
  db = openDatabase(path.join(dir, 'emulator.db'), EMULATOR_MIGRATIONS);
  const clock = new ManualClock();
  const objects = new SqliteObjectStore(db, dir, clock, ['open', 'closed']);
  const routes = new Map<string, RouteHandler>();
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const handler = routes.get(`${req.method} ${url.pathname}`);
    void Promise.resolve()
      .then(() => (handler ? handler(req, res, {}, url.searchParams) : sendError(res, 404, 'no route')))
      .catch((e: unknown) =>
        e instanceof HttpError ? sendError(res, e.status, e.message, e.codeStyle) : sendError(res, 500, String(e)),
      );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ctx: EmulatorContext = {
    config: { accessKey: 'ak', secretKey: 'sk', buckets: ['open', 'closed'], downloadBaseUrl: `${base}/dl` },
    objects,
    db,
    logger: silentLogger,
    clock,
    route: (method, p, handler) => void routes.set(`${method} ${p}`, handler),
    onClose: (fn) => void closeHooks.push(fn),
    objectUrl: (bucket, key) => `${base}/dl/${bucket}/${encodeURIComponent(key)}`,
  };
  mountVca(ctx, { analysisDelayMs: 1, smartMediaDisabledBuckets: ['closed'] });
  mgr = new MgrClient({ mgrUrl: base, accessKey: 'ak', secretKey: 'sk' });
});
afterAll(async () => {
  mgr?.close();
  for (const hook of closeHooks) await hook();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  db?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('mountVca options', () => {
  it('answers 401 Smart Media Service Not Enabled for a bucket configured without it', async () => {
    await expect(mgr.vcaCreate({ bucket: 'closed', source: 'http://127.0.0.1:1/v.mp4' })).rejects.toMatchObject({
      status: 401,
      code: '401',
      message: expect.stringContaining('Smart Media Service Not Enabled'),
    });
    const { jobId } = await mgr.vcaCreate({ bucket: 'open', source: 'http://127.0.0.1:1/v.mp4' });
    expect(jobId).toMatch(/^vca-/);
  });
});
