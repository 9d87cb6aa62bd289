import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ChaosContext } from './context';

/**
 * Section 5, run last: the run's secret key searched, raw, Base64 (standard and URL-safe,
 * at every alignment) and hex (both cases), in every file the run left under its root
 * (SQLite databases and their WAL, emulator data, logs, uploaded copies), in every table of
 * every SQLite database read through SQLite, in the error messages met, in the output and
 * in the /proc cmdline of every child process. A hit anywhere is a failure.
 */
export function needles(secret: string): Buffer[] {
  const s = Buffer.from(secret, 'utf8');
  const out = new Set<string>([secret, s.toString('hex'), s.toString('hex').toUpperCase()]);
  for (let k = 0; k < 3; k++) {
    const enc = Buffer.concat([Buffer.alloc(k), s]).toString('base64');
    // Characters that depend on the secret alone: from the first whole group, minus the last group.
    const stable = enc.slice(k === 0 ? 0 : 4, -4);
    out.add(stable);
    out.add(stable.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...out].map((n) => Buffer.from(n, 'utf8'));
}

export function contains(hay: Buffer, ns: Buffer[]): boolean {
  return ns.some((n) => hay.includes(n));
}

/** Every file under `dir`, as Buffer paths (names that are not UTF-8 included). */
async function files(dir: Buffer): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, encoding: 'buffer' })) {
    const full = Buffer.concat([dir, Buffer.from(path.sep), e.name]);
    if (e.isDirectory()) out.push(...(await files(full)));
    else if (e.isFile()) out.push(full);
  }
  return out;
}

/** Every row of every table, as text (blobs as hex and Base64 too). */
function dumpDatabase(file: string): Buffer {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>;
    const parts: string[] = [];
    for (const { name } of tables) {
      for (const row of db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).iterate() as Iterable<
        Record<string, unknown>
      >) {
        for (const v of Object.values(row)) {
          if (Buffer.isBuffer(v)) parts.push(v.toString('utf8'), v.toString('hex'), v.toString('base64'));
          else parts.push(String(v));
        }
      }
    }
    return Buffer.from(parts.join('\n'), 'utf8');
  } finally {
    db.close();
  }
}

export async function secretScan(ctx: ChaosContext): Promise<void> {
  const { rec } = ctx;
  const ns = needles(ctx.secretKey);
  // The scanner must be able to find what it looks for: each form, planted in a canary.
  const s = Buffer.from(ctx.secretKey);
  const canaries = [
    Buffer.concat([Buffer.from('x'), s, Buffer.from('y')]),
    Buffer.from(`…${s.toString('hex').toUpperCase()}…`),
    ...[0, 1, 2].map((k) =>
      Buffer.from(Buffer.concat([Buffer.alloc(k, 7), s, Buffer.from('tail')]).toString('base64url')),
    ),
  ];
  if (!canaries.every((c) => contains(c, ns)))
    rec.fail('the secret scanner misses a planted secret: it cannot be trusted');
  const hits: string[] = [];
  let scanned = 0;
  let bytes = 0;
  for (const fb of await files(Buffer.from(ctx.root))) {
    const f = fb.toString('utf8');
    const buf = await readFile(fb);
    scanned++;
    bytes += buf.length;
    if (contains(buf, ns)) hits.push(`file ${path.relative(ctx.root, f)}`);
    if (/\.db$/.test(f) && buf.length > 0) {
      try {
        if (contains(dumpDatabase(f), ns)) hits.push(`tables of ${path.relative(ctx.root, f)}`);
      } catch (e) {
        rec.note(`${path.relative(ctx.root, f)} not readable as SQLite: ${(e as Error).message}`);
      }
    }
  }
  const texts: Array<[string, string[]]> = [
    ['error messages', ctx.errorsSeen],
    ['child output', ctx.childOutput],
    ['child cmdline', ctx.childArgs],
  ];
  for (const [what, list] of texts) {
    for (const t of list) if (contains(Buffer.from(t, 'utf8'), ns)) hits.push(`${what}: ${t.slice(0, 200)}`);
  }
  rec.report.secretsFound += hits.length;
  for (const h of hits) rec.fail(`secret found in ${h}`);
  rec.note(
    `searched ${scanned} files (${(bytes / 1024 / 1024).toFixed(1)} MiB), ${ctx.errorsSeen.length} error messages, ` +
      `${ctx.childOutput.length / 2} children's output and ${ctx.childArgs.length} cmdlines for ${ns.length} forms of the secret`,
  );
  if (ctx.childArgs.length === 0)
    rec.note('no child process was started in this run (its cmdline check had nothing to read)');
}
