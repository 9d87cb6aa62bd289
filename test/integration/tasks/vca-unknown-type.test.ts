import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MgrClient } from '../../../src-main/protocol/client';
import { openDatabase, type Db } from '../../../src-main/store/db';
import { MIGRATIONS } from '../../../src-main/store/migrations';
import { exportCsv } from '../../../src-main/tasks/vca-export';
import { VcaTracker } from '../../../src-main/tasks/vca-tracker';
import { FAST_POLICY } from './setup';

// The emulator only sends the six documented result types, so a small loopback server plays
// a service that sends a type the spec does not list (and a failed job without `results`).
// Real HTTP, real client, real SQLite file.
const ACCOUNT = 1;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(answer: (jobId: string) => unknown) {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (req.method !== 'GET' || u.pathname !== '/v1/vca/search') {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"no route"}');
      return;
    }
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(answer(u.searchParams.get('jobId') ?? '')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  const mgrUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new MgrClient({ mgrUrl, accessKey: 'ak', secretKey: 'sk' });
  cleanups.push(() => client.close());
  const dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-vca-unknown-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const dbFile = path.join(dir, 'app.db');
  const open = () => {
    const db: Db = openDatabase(dbFile, MIGRATIONS);
    const vca = new VcaTracker({
      db,
      account: (id) => (id === ACCOUNT ? { client, mgrUrl } : undefined),
      publicBaseUrl: () => undefined,
      policy: FAST_POLICY,
    });
    return {
      db,
      vca,
      close: async () => {
        await vca.dispose();
        db.close();
      },
    };
  };
  return { open };
}

describe('VCA results of a type the spec does not list', () => {
  it('are kept, stored, shown raw after the known types, reviewable and exported; they survive a restart', async () => {
    const w = await world((jobId) => ({
      jobId,
      code: 3,
      desc: 'ok',
      notifyResult: 0,
      results: [
        { type: 'ocr', result: [{ attribute: 'EXIT', confidence: 0.9 }] },
        { type: 'scenario', result: [{ attribute: 'street', confidence: 0.8 }] },
      ],
    }));
    const a = w.open();
    cleanups.push(a.close);
    const j = a.vca.track(ACCOUNT, 'job-ocr');
    const done = await a.vca.waitUntilSettled(j.id);
    expect(done).toMatchObject({ tracking: 'done', code: 3, error: null });
    expect(done.results.map((g) => [g.type, g.labels.map((l) => l.attribute)])).toEqual([
      ['scenario', ['street']],
      ['ocr', ['EXIT']],
    ]);
    const ocr = done.results[1]!.labels[0]!;
    a.vca.decide(ocr.id, 'corrected', 'Exit sign');
    await a.close();
    cleanups.pop();

    const b = w.open();
    cleanups.push(b.close);
    const again = b.vca.get(j.id)!;
    expect(again.results[1]).toMatchObject({
      type: 'ocr',
      labels: [{ attribute: 'EXIT', decision: 'corrected', correctedText: 'Exit sign' }],
    });
    const csv = exportCsv(b.vca.exportRows([j.id]));
    expect(csv).toContain(',ocr,Exit sign,EXIT,0.9,corrected');
  });

  it('a failed job (code 2) without `results` is read as no labels, not as a broken reply', async () => {
    const w = await world((jobId) => ({ jobId, code: 2, desc: 'video cannot be decoded', notifyResult: 0 }));
    const a = w.open();
    cleanups.push(a.close);
    const j = a.vca.track(ACCOUNT, 'job-failed');
    const done = await a.vca.waitUntilSettled(j.id);
    expect(done).toMatchObject({
      tracking: 'done',
      code: 2,
      state: 'analysis failed',
      description: 'video cannot be decoded',
      results: [],
      error: null,
    });
  });
});
