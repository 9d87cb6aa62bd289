/**
 * A service made of plain data for looking at the screens in Chromium without a door: N
 * transfers in every state (answering transfers.list by page, filtered and sorted like the
 * real one), progress pushed ten times a second, a few roots, tasks and VCA jobs. Used by the
 * fixture page (screens with 50,000 rows, axe scans); the end-to-end tests use the real door.
 */
import type {
  AppEvents,
  Settings,
  TransferQuery,
  TransferTotals,
  TransferView,
} from '../../../src-main/shared/contract';
import type { TransferState } from '../../../src-main/shared/models';
import { fakeBridge, type FakeBridge } from '../../../src-renderer/bridge/fake';
import { roots, tasks, vcaJobs } from './data';

const STATES: TransferState[] = [
  'done',
  'done',
  'done',
  'uploading',
  'queued',
  'failed',
  'paused',
  'done',
  'canceled',
  'skipped',
];
const MiB = 1024 * 1024;
let bondiRefused = false;

function makeRow(id: number): TransferView {
  const state = STATES[id % STATES.length]!;
  const size = ((id * 7919) % 900) * 0.37 * MiB + 4096;
  const bytesDone = state === 'done' ? size : state === 'queued' ? 0 : Math.floor(size * ((id % 10) / 10));
  return {
    id,
    accountId: 1,
    bucket: 'local',
    key: `photos/2025/${String(id % 12).padStart(2, '0')}/IMG_${String(id).padStart(6, '0')}.jpg`,
    localPath: `/home/user/Pictures/2025/IMG_${String(id).padStart(6, '0')}.jpg`,
    size,
    state,
    source: id % 3 === 0 ? 'watch' : 'manual',
    bytesDone,
    speed: state === 'uploading' ? 2.5 * MiB : 0,
    etaSeconds: state === 'uploading' ? Math.round((size - bytesDone) / (2.5 * MiB)) : null,
    etag: state === 'done' ? `Fh${id.toString(16)}` : null,
    lastError:
      state === 'failed'
        ? { code: 'service-error', message: 'The service answered 631: bucket "archive" does not exist' }
        : null,
    warning: null,
    createdAt: Date.UTC(2025, 2, 7) + id * 1000,
    updatedAt: Date.UTC(2025, 2, 7) + id * 1000,
    rootId: id % 3 === 0 ? 1 : null,
    pausedBy: state === 'paused' ? 'user' : null,
    attempts: state === 'failed' ? 3 : 1,
    verified: state === 'done',
    remoteHash: null,
    persistentId: null,
    copiedFrom: null,
  };
}

/** `active`: how many of the newest rows are uploading (the UI benchmark's 10,000 in progress); 0 keeps the mix. */
export function fixtureService(count: number, active = 0): FakeBridge & { stop(): void } {
  const settings: Settings = {
    concurrency: { files: 4, blocksPerFile: 3 },
    bandwidthLimit: null,
    schedule: null,
    blockSize: 4 * MiB,
    chunkSize: null,
    conflict: 'rename',
    notifications: { batchFinished: true, failures: true },
    language: 'system',
    theme: 'system',
    keepAwake: true,
    launchAtLogin: false,
    storeSecretsWithoutKeyring: false,
  };
  const rows = Array.from({ length: count }, (_, i) => makeRow(count - i));
  for (const r of rows.slice(0, active))
    Object.assign(r, {
      state: 'uploading',
      bytesDone: 0,
      speed: 2.5 * MiB,
      etaSeconds: 60,
      etag: null,
      verified: false,
    });
  const totals = (): TransferTotals => {
    const t = {
      queued: 0,
      hashing: 0,
      uploading: 0,
      paused: 0,
      completing: 0,
      done: 0,
      failed: 0,
      canceled: 0,
      skipped: 0,
    };
    for (const r of rows) t[r.state]++;
    return t;
  };
  const query = (q: TransferQuery) => {
    const text = q.text?.toLowerCase();
    return rows.filter(
      (r) => (!q.states?.length || q.states.includes(r.state)) && (!text || r.key.toLowerCase().includes(text)),
    );
  };
  const bridge = fakeBridge({
    transfers: {
      list: async (q) => {
        const matching = query(q);
        const offset = q.offset ?? 0;
        return {
          ok: true,
          value: { rows: matching.slice(offset, offset + (q.limit ?? 200)), total: matching.length, totals: totals() },
        };
      },
      get: async ({ id }) => {
        const row = rows.find((r) => r.id === id);
        if (!row) return { ok: false, error: { code: 'not-found', message: 'no', params: { what: 'Transfer', id } } };
        const blockSize = 4 * MiB;
        const n = Math.max(1, Math.ceil(row.size / blockSize));
        return {
          ok: true,
          value: {
            ...row,
            blockSize,
            options: {},
            etagCheck: row.state === 'done' ? 'matched' : 'pending',
            url: row.state === 'done' ? `http://127.0.0.1:9000/${row.key}` : null,
            copiedFrom: null,
            lastReply: {
              status: 200,
              requestId: 'req-7f3a9c',
              body: '{"hash":"Fh00","key":"' + row.key + '"}',
              at: row.updatedAt,
            },
            blocks: Array.from({ length: n }, (_, index) => ({
              index,
              size: Math.min(blockSize, row.size - index * blockSize),
              bytesDone: index * blockSize < row.bytesDone ? Math.min(blockSize, row.bytesDone - index * blockSize) : 0,
              state:
                (index + 1) * blockSize <= row.bytesDone
                  ? 'done'
                  : index * blockSize < row.bytesDone
                    ? 'in-flight'
                    : 'waiting',
              restarts: index === 2 ? 1 : 0,
            })),
          },
        };
      },
      pause: async () => ({ ok: true, value: { count: 1 } }),
      resume: async () => ({ ok: true, value: { count: 1 } }),
      retry: async () => ({
        ok: false,
        error: {
          code: 'service-unreachable',
          message: 'The service at http://127.0.0.1:9 cannot be reached: connect ECONNREFUSED',
          params: { url: 'http://127.0.0.1:9', reason: 'connect ECONNREFUSED' },
        },
      }),
    },
    app: {
      status: async () => ({
        ok: true,
        value: {
          version: '0.1.0',
          door: 'headless',
          dataDir: '/home/user/.local/share/blocklift',
          emulator: { url: 'http://127.0.0.1:41234', accountId: 1 },
          totals: totals(),
          throughput: 0,
          paused: null,
          schedule: { running: true, bytesPerSecond: null, nextChangeAt: null },
          can: { openDataFolder: false, openPath: false, localPaths: false, chooseFolder: false },
          // A Linux desktop without a keyring (issue 20.3): Settings offers the weak store.
          secretStore: { kind: 'session', backend: 'basic_text' },
          firstRun: true,
          health: {
            eventLoopDelayMs: { p50: 10.1, p99: 12.3, max: 20.5 },
            windowMs: 60_000,
            rssBytes: 150 * 1024 * 1024,
            heapUsedBytes: 60 * 1024 * 1024,
          },
        },
      }),
    },
    accounts: {
      list: async () => ({
        ok: true,
        value: [
          {
            id: 1,
            name: 'Local',
            uploadUrl: 'http://127.0.0.1:41234',
            mgrUrl: 'http://127.0.0.1:41234',
            downloadDomain: 'http://127.0.0.1:41234',
            accessKey: 'local',
            tokenUrl: null,
            hasSecret: true,
            secret: 'stored · changed 2026-11-27',
            isLocal: true,
            isDefault: true,
            proxy: { mode: 'none' },
          },
          {
            // Its secret key was kept for one session only by an earlier run (no keyring).
            id: 2,
            name: 'Cloud',
            uploadUrl: 'https://upload.example.com',
            mgrUrl: null,
            downloadDomain: null,
            accessKey: 'ak-cloud',
            tokenUrl: null,
            hasSecret: true,
            secret: 'session ended · changed 2026-11-26',
            isLocal: false,
            isDefault: false,
            proxy: { mode: 'system' },
          },
        ],
      }),
    },
    settings: {
      get: async () => ({ ok: true, value: settings }),
      set: async (patch) => {
        Object.assign(settings, patch);
        bridge.push('settings', { ...settings });
        return { ok: true, value: { ...settings } };
      },
    },
    roots: {
      list: async () => ({ ok: true, value: roots }),
      plan: async () => ({
        ok: true,
        value: {
          newFiles: 1200,
          newBytes: 3.4 * 1024 * MiB,
          changedFiles: 12,
          changedBytes: 40 * MiB,
          unchangedFiles: 11000,
          unchangedBytes: 30 * 1024 * MiB,
          retryFiles: 0,
          retryBytes: 0,
          inFlightFiles: 0,
          ignoredFiles: 180,
          ignoredBytes: 2 * MiB,
          rejectedFiles: 2,
          renamedFiles: 3,
          missingFiles: 0,
          waitingFiles: 0,
          problems: [],
          filesToUpload: 1212,
          bytesToUpload: 3.44 * 1024 * MiB,
          estimatedSeconds: 1460,
          assumedBytesPerSecond: 2.4 * MiB,
          speedSource: 'measured',
          rejected: [],
        },
      }),
      previewIgnores: async () => ({
        ok: true,
        value: {
          ignored: [
            { relPath: 'raw/IMG_1.raw', reason: 'ignore-rule' },
            { relPath: '.cache/x', reason: 'hidden' },
          ],
          ignoredCount: 2,
          includedCount: 12406,
        },
      }),
    },
    fmgr: {
      list: async () => ({ ok: true, value: tasks }),
      get: async ({ id }) => ({
        ok: true,
        value: {
          ...tasks.find((x) => x.id === id)!,
          history: [
            { at: Date.UTC(2025, 2, 7, 6, 5), code: 1, state: 'processing', source: 'poll' },
            { at: Date.UTC(2025, 2, 7, 6, 6), code: 0, state: 'success', source: 'notify' },
          ],
        },
      }),
    },
    vca: {
      list: async () => ({ ok: true, value: vcaJobs }),
      decide: async (input) => {
        const j = vcaJobs.find((x) => x.id === input.jobId)!;
        // The first decision on "Bondi" meets a busy database (the review then offers Retry).
        const label = j.results.flatMap((g) => g.labels).find((l) => l.id === input.labelId);
        if (label?.attribute === 'Bondi' && !bondiRefused) {
          bondiRefused = true;
          return {
            ok: false,
            error: {
              code: 'database-error',
              message: 'The queue database failed: database is locked',
              params: { detail: 'database is locked' },
            },
          };
        }
        for (const g of j.results)
          for (const l of g.labels)
            if (l.id === input.labelId)
              Object.assign(l, { decision: input.decision, correctedText: input.correctedText ?? null });
        return { ok: true, value: structuredClone(j) };
      },
      labels: async () => ({
        ok: true,
        value: {
          hits: [
            {
              jobId: 1,
              labelId: 101,
              type: 'scenario',
              attribute: 'beach',
              confidence: 0.97,
              decision: 'pending',
              source: 'videos/beach-01.mp4',
            },
          ],
          total: 1,
        },
      }),
    },
  });
  // Like the headless door: dropped files are staged and queued (here: counted, not stored).
  bridge.stageFiles = async (files) => ({
    ok: true,
    value: { queued: files.map((_, i) => count + i + 1), alreadyUploaded: [], skipped: [], bytesQueued: 0 },
  });
  let tick = 0;
  const timer = setInterval(() => {
    tick++;
    const moving = rows.filter((r) => r.state === 'uploading').slice(0, 200);
    const progress: AppEvents['transfers']['progress'] = moving.map((r) => {
      r.bytesDone = Math.min(r.size, r.bytesDone + 0.25 * MiB);
      return { id: r.id, bytesDone: r.bytesDone, size: r.size, speed: r.speed, etaSeconds: r.etaSeconds };
    });
    bridge.push('transfers', {
      changed: [],
      removed: [],
      progress,
      totals: totals(),
      throughput: (40 + 20 * Math.sin(tick / 10)) * MiB,
    });
  }, 100);
  return Object.assign(bridge, { stop: () => clearInterval(timer) });
}
