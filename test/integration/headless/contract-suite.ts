import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BUCKET } from '../../../src-main/emulator/server';
import { AppService } from '../../../src-main/service/app-service';
import type {
  ApiInput,
  ApiMethod,
  ApiOutput,
  AppEventMessage,
  Result,
  TransferView,
} from '../../../src-main/shared/contract';
import { FAST_POLICY } from '../../helpers/fast-policy';
import { sweepEveryVerbForSecrets } from './secret-sweep';

/** Short delays of the embedded emulator (as the service suites use). */
const FAST_EMULATOR = { notifyRetry: { attempts: 3, baseDelayMs: 50 }, vcaDelayMs: 50, fmgrStepDelayMs: 5 };
const SECRET = 'sk-contract-suite-never-leaves-the-main-process';

/** A front end's view of a door: calls and the events it received, with every frame as text. */
export interface DoorClient {
  call(method: ApiMethod, input: unknown): Promise<Result<unknown>>;
  /** Every event received so far, in order. */
  events: AppEventMessage[];
  /** Called after each event arrives. */
  onEvent(listener: () => void): () => void;
  /** Every reply and event as the wire carried it (JSON), for the secret check. */
  wire: string[];
  close(): Promise<void>;
}

export interface DoorUnderTest {
  door: 'headless' | 'electron';
  /** Opens the door over a running service and connects a client to it. */
  connect(service: AppService, dataDir: string): Promise<DoorClient>;
}

async function call<M extends ApiMethod>(c: DoorClient, method: M, input: ApiInput<M>): Promise<ApiOutput<M>> {
  const r = await c.call(method, input);
  if (!r.ok) throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
  return r.value as ApiOutput<M>;
}

/** Resolves when an event received (before or after the call) satisfies `pred`. */
function waitFor<T>(c: DoorClient, pred: (e: AppEventMessage) => T | undefined, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const check = () => {
      for (const e of c.events) {
        const hit = pred(e);
        if (hit !== undefined) {
          off();
          clearTimeout(timer);
          resolve(hit);
          return true;
        }
      }
      return false;
    };
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no event showed ${what}; last: ${JSON.stringify(c.events.slice(-3)).slice(0, 1500)}`));
    }, 45_000);
    const off = c.onEvent(check);
    check();
  });
}

/** The latest snapshot of a transfer seen in transfers batches, when it is in one of `states`. */
const transferIn = (id: number, states: TransferView['state'][]) => (e: AppEventMessage) => {
  if (e.name !== 'transfers') return undefined;
  const row = e.payload.changed.find((t) => t.id === id);
  return row && states.includes(row.state) ? row : undefined;
};

/**
 * The contract through a door against the real app service on its embedded emulator: files
 * and a folder upload, a transfer pauses and resumes, an Fmgr task and a VCA job go through
 * their states, and no reply or event ever carries an account's secret key.
 */
export function contractSuite(under: DoorUnderTest): void {
  describe(`the contract through the ${under.door} door`, () => {
    let tmp = '';
    let dataDir = '';
    let service: AppService;
    let client: DoorClient;

    beforeAll(async () => {
      tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), `bl-contract-${under.door}-`)));
      dataDir = path.join(tmp, 'data');
      service = await AppService.open({
        dataDir,
        emulatorOptions: FAST_EMULATOR,
        pollPolicy: FAST_POLICY,
        door: { door: under.door },
      });
      client = await under.connect(service, dataDir);
    });

    afterAll(async () => {
      await client?.close();
      await service?.close();
      await rm(tmp, { recursive: true, force: true });
    });

    it('reports the app status through the door, on the embedded emulator', async () => {
      const status = await call(client, 'app.status', undefined);
      expect(status.door).toBe(under.door);
      expect(status.emulator?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
      const unknown = await client.call('transfers.explode' as ApiMethod, {});
      expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown-method' } });
      const invalid = await client.call('transfers.get', { id: 'seven' });
      expect(invalid).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    });

    it('refuses a broken domain rule at the door with its catalog code and words, before touching anything', async () => {
      // The path does not exist: a refusal from the schema comes before any file is looked at.
      const missing = path.join(tmp, 'not-there.bin');
      const block = await client.call('transfers.add', {
        paths: [missing],
        target: { bucket: 'local' },
        options: { blockSize: 5 * 1024 * 1024 },
      });
      expect(block).toMatchObject({
        ok: false,
        error: { code: 'invalid-setting', params: { name: 'blockSize', detail: expect.stringMatching(/not 5 MiB/) } },
      });
      const key = await client.call('transfers.add', { paths: [missing], target: { bucket: 'local', key: 'a//b' } });
      expect(key).toMatchObject({ ok: false, error: { code: 'key-invalid', params: { key: 'a//b' } } });
      const options = await client.call('roots.plan', {
        path: tmp,
        bucket: 'local',
        options: { keyTemplate: '{nope}/{name}' },
      });
      expect(options).toMatchObject({
        ok: false,
        error: {
          code: 'invalid-watch-options',
          params: { detail: expect.stringMatching(/unknown placeholder \{nope\}/) },
        },
      });
      const md5 = await client.call('fmgr.submit', {
        ops: [{ op: 'fetch', fetchURL: 'http://127.0.0.1:1/a', bucket: 'local', md5: 'abc' }],
      });
      expect(md5).toMatchObject({ ok: false, error: { code: 'fmgr-invalid-op' } });
      expect(!md5.ok && md5.error.message).toMatch(/md5 must be 32 hex digits/);
    });

    it('uploads files and a folder, with their progress and a finished batch as events', async () => {
      const files = path.join(tmp, 'files');
      await mkdir(path.join(files, 'tree', 'sub'), { recursive: true });
      await writeFile(path.join(files, 'a.txt'), 'hello from the door suite\n');
      await writeFile(path.join(files, 'b.bin'), Buffer.alloc(300 * 1024, 7));
      await writeFile(path.join(files, 'tree', 'x.txt'), 'x');
      await writeFile(path.join(files, 'tree', 'sub', 'y.txt'), 'y');
      const added = await call(client, 'transfers.add', {
        paths: [path.join(files, 'a.txt'), path.join(files, 'b.bin'), path.join(files, 'tree')],
        target: { bucket: DEFAULT_BUCKET, prefix: 'suite/' },
      });
      expect(added.queued).toHaveLength(4);
      for (const id of added.queued) await waitFor(client, transferIn(id, ['done']), `transfer ${id} done`);
      await waitFor(
        client,
        (e) => (e.name === 'batchFinished' && e.payload.done === 4 ? e.payload : undefined),
        'the batch finished',
      );
      const page = await call(client, 'transfers.list', { states: ['done'] });
      expect(page.rows.map((r) => r.key).sort()).toEqual(
        // A folder's files are keyed by their path relative to it.
        ['suite/a.txt', 'suite/b.bin', 'suite/sub/y.txt', 'suite/x.txt'].sort(),
      );
      expect(page.rows.every((r) => r.verified)).toBe(true);
    });

    it('pauses and resumes a running transfer', async () => {
      await call(client, 'settings.set', { bandwidthLimit: 256 * 1024 });
      const big = path.join(tmp, 'files', 'big.bin');
      await writeFile(big, Buffer.alloc(12 * 1024 * 1024, 1));
      const { queued } = await call(client, 'transfers.add', { paths: [big], target: { bucket: DEFAULT_BUCKET } });
      const id = queued[0]!;
      await waitFor(client, transferIn(id, ['uploading']), 'the big transfer uploading');
      expect(await call(client, 'transfers.pause', { ids: [id] })).toEqual({ count: 1 });
      const paused = await waitFor(client, transferIn(id, ['paused']), 'the big transfer paused');
      expect(paused.pausedBy).toBe('user');
      await call(client, 'settings.set', { bandwidthLimit: null });
      expect(await call(client, 'transfers.resume', { ids: [id] })).toEqual({ count: 1 });
      await waitFor(client, transferIn(id, ['done']), 'the big transfer done after resume');
    });

    it('follows an Fmgr task to its end', async () => {
      const task = await call(client, 'fmgr.submit', {
        ops: [
          {
            op: 'copy',
            srcBucket: DEFAULT_BUCKET,
            srcKey: 'suite/a.txt',
            bucket: DEFAULT_BUCKET,
            key: 'suite/a-copy.txt',
          },
        ],
      });
      expect(task.tracking).toBe('active');
      const done = await waitFor(
        client,
        (e) =>
          e.name === 'fmgr' ? e.payload.changed.find((t) => t.id === task.id && t.tracking === 'done') : undefined,
        'the Fmgr task done',
      );
      expect(done.state).toBe('processing finished');
      expect(done.items.map((i) => i.state)).toEqual(['processing succeeded']);
      const detail = await call(client, 'fmgr.get', { id: task.id });
      expect(detail.history.length).toBeGreaterThan(0);
    });

    it('runs a VCA job on an uploaded video through its states', async () => {
      const video = path.join(tmp, 'files', 'clip.mp4');
      await writeFile(video, Buffer.alloc(64 * 1024, 3));
      const { queued } = await call(client, 'transfers.add', { paths: [video], target: { bucket: DEFAULT_BUCKET } });
      await waitFor(client, transferIn(queued[0]!, ['done']), 'the video uploaded');
      const job = await call(client, 'vca.create', { source: { transferId: queued[0]! } });
      const done = await waitFor(
        client,
        (e) => (e.name === 'vca' ? e.payload.changed.find((j) => j.id === job.id && j.tracking === 'done') : undefined),
        'the VCA job done',
      );
      expect(done.results.length).toBeGreaterThan(0);
      const again = await call(client, 'vca.get', { id: job.id });
      expect(again.state).toBe(done.state);
    });

    it('no verb, event or log line carries a secret key, a token-URL password or its query (issue 20)', async () => {
      await sweepEveryVerbForSecrets(client, tmp, dataDir);
    });

    it('never sends an account secret in a reply or an event', async () => {
      const saved = await call(client, 'accounts.save', {
        name: 'Remote',
        uploadUrl: 'http://127.0.0.1:9',
        accessKey: 'ak-remote',
        secretKey: SECRET,
      });
      expect(saved.hasSecret).toBe(true);
      await call(client, 'accounts.list', undefined);
      await waitFor(client, (e) => (e.name === 'accounts' ? true : undefined), 'the accounts event');
      expect(client.wire.length).toBeGreaterThan(10);
      for (const frame of client.wire) expect(frame).not.toContain(SECRET);
    });
  });
}
