import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MgrClient } from '../../src-main/protocol/client';
import { readCsv } from '../helpers/csv';
import { EXPORT_COLUMNS } from '../../src-main/tasks/vca-export';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator';

// The `blocklift fmgr` and `blocklift vca` commands as a person or a script runs them:
// child processes against a real emulator, with a real database file.
const BIN = path.resolve('bin/blocklift.mjs');
let emu: TestEmulator;
let dir: string;
let labelsFile: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'blocklift-cli-tasks-'));
  labelsFile = path.join(dir, 'labels.json');
  await writeFile(
    labelsFile,
    JSON.stringify({
      jobs: [
        {
          match: '*/cli.mp4',
          results: {
            scenario: [
              { attribute: 'beach, sunny', confidence: 0.9 },
              { attribute: 'desert', confidence: 0.6 },
            ],
            logo: [{ attribute: 'Acme "Co"', confidence: 0.4 }],
          },
        },
      ],
    }),
  );
  emu = await startTestEmulator({ vcaLabelsFile: labelsFile });
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

function cli(
  args: string[],
  db = path.join(dir, 'cli.db'),
  keysInEnv = true,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BLOCKLIFT_DATA: path.join(dir, 'data'), // never the real home
    BLOCKLIFT_MGR_URL: emu.mgrUrl,
    BLOCKLIFT_AK: emu.config.accessKey,
    BLOCKLIFT_SK: emu.config.secretKey,
  };
  if (!keysInEnv) {
    delete env.BLOCKLIFT_AK;
    delete env.BLOCKLIFT_SK;
  }
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args, '--db', db], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 99) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** --json output: one object per line (never a pretty-printed array). */
function jsonRows<T>(stdout: string): T[] {
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines.every((l) => l.startsWith('{') && l.endsWith('}'))).toBe(true);
  return lines.map((l) => JSON.parse(l) as T);
}

const lastJson = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown> & { items: Record<string, unknown>[] };

describe('blocklift fmgr', () => {
  it('copy --wait --json follows the task to its end and the copy exists', async () => {
    emu.objects.putBuffer(emu.bucket, 'cli/a.txt', Buffer.from('abc'), {});
    const r = await cli([
      'fmgr',
      'copy',
      '--from',
      `${emu.bucket}:cli/a.txt`,
      '--bucket',
      emu.bucket,
      '--key',
      'cli/b.txt',
      '--wait',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const t = lastJson(r.stdout);
    expect(t).toMatchObject({ tracking: 'done', state: 'processing finished', origin: 'submitted' });
    expect(t.items[0]).toMatchObject({ state: 'processing succeeded', key: 'cli/b.txt' });
    expect(emu.objects.stat(emu.bucket, 'cli/b.txt')?.size).toBe(3);
  });

  it('delete prints the persistentId; status --wait shows state names and items', async () => {
    emu.objects.putBuffer(emu.bucket, 'cli/d1', Buffer.from('1'), {});
    const sub = await cli(['fmgr', 'delete', '--bucket', emu.bucket, '--key', 'cli/d1', '--key', 'cli/never-there']);
    expect(sub.code).toBe(0);
    const pid = sub.stdout.trim();
    expect(pid).toMatch(/^\S+$/);
    const st = await cli(['fmgr', 'status', pid, '--wait']);
    expect(st.stdout).toContain(`task ${pid}: processing finished (code 3) [done]`);
    expect(st.stdout).toMatch(/1\. delete\/\S+\n\s+processing succeeded \(code 3\)/);
    expect(st.stdout).toMatch(/2\. delete\/\S+\n\s+processing failed \(code 2\)\n\s+error: .+/);
    expect(st.code).toBe(1); // one item failed
    expect(emu.objects.stat(emu.bucket, 'cli/d1')).toBeUndefined();
  });

  it('an unknown persistentId: the error is shown, exit 1', async () => {
    const r = await cli(['fmgr', 'status', 'no-such-id']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no task "no-such-id" could be found: .*does not know this task id/);
    expect(r.stderr).not.toContain('.;'); // the service's sentence, then ours, without a stray stop
  });

  it("a submission the service refuses: exit 1, and --json names the service's error code from the catalog", async () => {
    const r = await cli(['fmgr', 'delete', '--bucket', emu.bucket, '--key', 'k', '--sk', 'not-the-secret', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ error: { code: 'service-auth-failed' }, exitCode: 1 });
    expect(r.stderr).toMatch(/refused the credentials/);
  });

  it('bad usage gets a clear message and exit 2', async () => {
    const a = await cli(['fmgr', 'setdeadline', '--bucket', emu.bucket, '--deadline', 'soon']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/--deadline must be a whole number of days/);
    const b = await cli(['fmgr', 'copy', '--from', 'nokey', '--bucket', emu.bucket]);
    expect(b.stderr).toMatch(/--from must be "bucket:key"/);
    const c = await cli(['fmgr', 'delete', '--bucket', emu.bucket]);
    expect(c.stderr).toMatch(/needs --key/);
  });

  it('refuses values that would change the fops (md5 with slashes) and a second target --key, exit 2, nothing submitted', async () => {
    const inj = await cli([
      'fmgr',
      'fetch',
      '--url',
      'http://127.0.0.1:1/a',
      '--bucket',
      emu.bucket,
      '--md5',
      'abc/key/Zm9v',
    ]);
    expect(inj.code).toBe(2);
    expect(inj.stderr).toMatch(/md5 must be 32 hex digits/);
    for (const op of ['copy', 'move']) {
      const two = await cli([
        'fmgr',
        op,
        '--from',
        `${emu.bucket}:cli/a.txt`,
        '--bucket',
        emu.bucket,
        '--key',
        'x1',
        '--key',
        'x2',
      ]);
      expect(two.code).toBe(2);
      expect(two.stderr).toMatch(new RegExp(`fmgr ${op} takes at most one --key`));
    }
    const empty = await cli([
      'fmgr',
      'compress',
      '--bucket',
      emu.bucket,
      '--key',
      'a',
      '--key',
      '',
      '--save-as',
      `${emu.bucket}:z.zip`,
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/key \(number 2\)/);
  });
});

describe('blocklift vca', () => {
  it('create --wait, show, review, export --csv and --json', async () => {
    emu.objects.putBuffer(emu.bucket, 'v/cli.mp4', Buffer.from('video'), { mimeType: 'video/mp4' });
    const url = emu.objectUrl(emu.bucket, 'v/cli.mp4');
    const created = await cli(['vca', 'create', url, '--bucket', emu.bucket, '--wait', '--json']);
    expect(created.code).toBe(0);
    const job = lastJson(created.stdout) as unknown as { jobId: string; code: number; state: string };
    expect(job).toMatchObject({ code: 3, state: 'analysis succeeded' });

    const shown = await cli(['vca', 'show', job.jobId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('analysis succeeded (code 3) [done]');
    expect(shown.stdout).toMatch(/scenario:\n\s+\+ beach, sunny {2}0\.9 {2}above-threshold/);
    expect(shown.stdout).toMatch(/logo:\n\s+- Acme "Co" {2}0\.4 {2}below-threshold/);

    const reviewed = await cli([
      'vca',
      'review',
      job.jobId,
      '--reject',
      'scenario:desert',
      '--correct',
      'logo:Acme "Co"=Acme Corp',
      '--min-confidence',
      '0.8',
    ]);
    expect(reviewed.stderr).toBe('');
    expect(reviewed.code).toBe(0);

    const out = path.join(dir, 'labels.csv');
    const csv = await cli(['vca', 'export', job.jobId, '--csv', '--out', out]);
    expect(csv.code).toBe(0);
    const rows = readCsv(await readFile(out, 'utf8'));
    expect(rows).toEqual([
      [...EXPORT_COLUMNS],
      [job.jobId, url, emu.bucket, 'scenario', 'beach, sunny', 'beach, sunny', '0.9', 'above-threshold'],
      [job.jobId, url, emu.bucket, 'logo', 'Acme Corp', 'Acme "Co"', '0.4', 'corrected'],
    ]);
    const json = await cli(['vca', 'export', job.jobId, '--json']);
    expect(jsonRows<{ label: string }>(json.stdout).map((r) => r.label)).toEqual(['beach, sunny', 'Acme Corp']);
    // --out writes exactly what standard output shows.
    const jsonOut = path.join(dir, 'labels.jsonl');
    expect((await cli(['vca', 'export', job.jobId, '--json', '--out', jsonOut])).code).toBe(0);
    expect(await readFile(jsonOut, 'utf8')).toBe(json.stdout);
  });

  it('show and export a job that is not in the local database: fetched from the service and stored', async () => {
    emu.objects.putBuffer(emu.bucket, 'v/other.mp4', Buffer.from('video2'), {});
    const client = new MgrClient({
      mgrUrl: emu.mgrUrl,
      accessKey: emu.config.accessKey,
      secretKey: emu.config.secretKey,
    });
    let jobId: string;
    try {
      ({ jobId } = await client.vcaCreate({ bucket: emu.bucket, source: emu.objectUrl(emu.bucket, 'v/other.mp4') }));
    } finally {
      client.close();
    }
    const freshDb = path.join(dir, 'fresh.db');
    const shown = await cli(['vca', 'show', jobId, '--wait'], freshDb);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`job ${jobId}: analysis succeeded`);
    const exported = await cli(['vca', 'export', jobId, '--json'], freshDb);
    expect(exported.code).toBe(0);
    const rows = jsonRows<{ jobId: string; video: string }>(exported.stdout);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.jobId === jobId && r.video === '')).toBe(true);
  });

  it('a job created with --ak/--sk flags is found by show/export without them: one row, video URL kept', async () => {
    emu.objects.putBuffer(emu.bucket, 'v/flags.mp4', Buffer.from('video3'), {});
    const url = emu.objectUrl(emu.bucket, 'v/flags.mp4');
    const db = path.join(dir, 'flags.db');
    const created = await cli(
      [
        'vca',
        'create',
        url,
        '--bucket',
        emu.bucket,
        '--ak',
        emu.config.accessKey,
        '--sk',
        emu.config.secretKey,
        '--wait',
        '--json',
      ],
      db,
      false,
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const job = lastJson(created.stdout) as unknown as { jobId: string };
    // A trailing slash on the management URL is the same host.
    const shown = await cli(['vca', 'show', job.jobId, '--mgr-url', `${emu.mgrUrl}/`], db, false);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`job ${job.jobId}: analysis succeeded (code 3) [done]`);
    expect(shown.stdout).toContain(`video: ${url}`);
    const exported = await cli(['vca', 'export', job.jobId, '--json'], db, false);
    expect(exported.code).toBe(0);
    const rows = jsonRows<{ video: string }>(exported.stdout);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.video === url)).toBe(true);
    const sqlite = new Database(db, { readonly: true });
    try {
      expect(sqlite.prepare('SELECT COUNT(*) AS n FROM vca_jobs WHERE job_id = ?').get(job.jobId)).toEqual({ n: 1 });
    } finally {
      sqlite.close();
    }
  });

  it('export of a jobId the service does not know leaves no row behind', async () => {
    const db = path.join(dir, 'nope.db');
    const r = await cli(['vca', 'export', 'nope', '--csv'], db);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/does not know the analysis job "nope"/);
    const sqlite = new Database(db, { readonly: true });
    try {
      expect(sqlite.prepare('SELECT COUNT(*) AS n FROM vca_jobs').get()).toEqual({ n: 0 });
    } finally {
      sqlite.close();
    }
  });

  it('errors a person can act on', async () => {
    const bucket = await cli(['vca', 'create', 'http://example.com/v.mp4', '--bucket', 'nope']);
    expect(bucket.code).toBe(1);
    expect(bucket.stderr).toMatch(/bucket "nope" does not exist/);
    const unknown = await cli(['vca', 'show', 'no-such-job']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/does not know the analysis job "no-such-job"/);
    const fmt = await cli(['vca', 'export', 'x']);
    expect(fmt.code).toBe(2);
    expect(fmt.stderr).toMatch(/exactly one of --csv or --json/);
    const notUrl = await cli(['vca', 'create', 'video.mp4', '--bucket', emu.bucket]);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toMatch(/not a complete URL/);
  });
});
