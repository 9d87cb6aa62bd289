import type { Command } from 'commander';
import { fmgrOpProblem, type FmgrOp, type FmgrOpName } from '../../shared/fmgr-ops';
import { FMGR_FAILED_ITEM_CODES, type FmgrTaskView } from '../../shared/task-views';
import { addAccountOptions, type AccountFlags } from '../account-options';
import { openTasksService, seconds, waitSignal, type ServiceContext } from '../tasks-context';
import { collect } from '../option-parsers';
import { printable } from '../../shared/keys';
import { CliError } from '../cli-error';
import { valueOf } from '../service-result';
import { followUntilSettled } from '../follow';

/**
 * `blocklift fmgr <op> …` submits one Fmgr task and prints its persistentId;
 * `blocklift fmgr status <persistentId> [--wait]` shows its state and items.
 *
 * Tasks are recorded in the same SQLite file as the app (--db), under the session account of
 * the management host (sessionAccountName; its secret stays in memory), so the app and later
 * commands see them; `status` finds a task by its persistentId in any account first. With --json every output
 * is one JSON object per line (the task as FmgrTaskView). Exit codes: 0 when the task (if
 * waited for) finished with every item succeeded; 1 when it finished with a failed item,
 * or the service does not know the id, or polling failed; 2 for bad usage.
 */

/** Follows a task through the service's `fmgr` batches until it settles, printing each state it is seen in. */
async function followPrinting(
  ctx: ServiceContext,
  task: FmgrTaskView,
  timeoutSeconds: number | undefined,
): Promise<FmgrTaskView> {
  let lastState = '';
  const taskId = task.id;
  const w = waitSignal(timeoutSeconds);
  try {
    return await followUntilSettled<FmgrTaskView>({
      service: ctx.api,
      area: 'fmgr',
      id: taskId,
      get: () => ctx.api.fmgr.get({ id: taskId }),
      signal: w.signal,
      onActive: (v) => {
        const line = v.error ? `error: ${v.error.message}` : (v.state ?? '');
        if (line === lastState) return;
        lastState = line;
        if (ctx.flags.json) process.stdout.write(`${JSON.stringify(v)}\n`);
        else process.stderr.write(`${v.persistentId}: ${line}\n`);
      },
      stopped: (reason) =>
        new CliError(
          `stopped waiting (${reason}); the task goes on at the service, see it with: blocklift fmgr status ${task.persistentId}`,
          1,
        ),
    });
  } finally {
    w.dispose();
  }
}

function entry(flag: string, value: string): { bucket: string; key: string } {
  const i = value.indexOf(':');
  if (i <= 0 || i === value.length - 1) throw new CliError(`${flag} must be "bucket:key", not "${value}"`);
  return { bucket: value.slice(0, i), key: value.slice(i + 1) };
}

function need(o: Record<string, unknown>, name: string, flag: string, op: string): string {
  const v = o[name];
  if (typeof v !== 'string' || v === '') throw new CliError(`fmgr ${op} needs ${flag}`);
  return v;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Builds the typed operations of one submission from the flags of `fmgr <op>` and checks
 * their values with the contract's rules (shared/fmgr-ops.ts); throws CliError (exit 2,
 * code fmgr-invalid-op) with the reason.
 */
export function opsFromFlags(op: FmgrOpName, o: Record<string, unknown>): FmgrOp[] {
  const ops = rawOpsFromFlags(op, o);
  for (const one of ops) {
    const problem = fmgrOpProblem(one);
    if (problem !== undefined) throw new CliError(`fmgr ${op}: ${problem}`, 2, 'fmgr-invalid-op');
  }
  return ops;
}

function rawOpsFromFlags(op: FmgrOpName, o: Record<string, unknown>): FmgrOp[] {
  const bucket = () => need(o, 'bucket', '--bucket <bucket>', op);
  const keys = (o.key as string[] | undefined) ?? [];
  /** fetch, copy and move write one object: a second --key would be silently ignored. */
  const targetKey = () => {
    if (keys.length > 1)
      throw new CliError(
        `fmgr ${op} takes at most one --key (the target key), got ${keys.length}; run it once per object`,
      );
    return keys[0];
  };
  switch (op) {
    case 'fetch':
      return [
        {
          op,
          fetchURL: need(o, 'url', '--url <url>', op),
          bucket: bucket(),
          key: targetKey(),
          prefix: str(o.prefix),
          md5: typeof o.md5 === 'string' ? o.md5 : undefined,
        },
      ];
    case 'copy':
    case 'move': {
      const src = entry('--from', need(o, 'from', '--from <bucket:key>', op));
      return [
        { op, srcBucket: src.bucket, srcKey: src.key, bucket: bucket(), key: targetKey(), prefix: str(o.prefix) },
      ];
    }
    case 'delete':
      if (keys.length === 0)
        throw new CliError('fmgr delete needs --key <key> (repeat it to delete several keys in one task)');
      return keys.map((key) => ({ op, bucket: bucket(), key }));
    case 'deletePrefix':
      return [{ op, bucket: bucket(), prefix: need(o, 'prefix', '--prefix <prefix>', op), output: str(o.output) }];
    case 'deletem3u8':
      if (keys.length !== 1) throw new CliError('fmgr deletem3u8 needs one --key <playlist.m3u8>');
      return [{ op, bucket: bucket(), key: keys[0]!, deletets: o.deletets === true ? 1 : undefined }];
    case 'setdeadline': {
      const d = need(o, 'deadline', '--deadline <days>', op);
      if (!/^-?\d+$/.test(d) || Number(d) < -1)
        throw new CliError('--deadline must be a whole number of days, or -1 to remove the deadline');
      return [{ op, bucket: bucket(), prefix: str(o.prefix), deadline: Number(d) }];
    }
    case 'compress': {
      if (keys.length === 0) throw new CliError('fmgr compress needs --key <key> for each file to put in the zip');
      const save = entry('--save-as', need(o, 'saveAs', '--save-as <bucket:key>', op));
      return [{ op, bucket: bucket(), keys, saveAsBucket: save.bucket, saveAsKey: save.key }];
    }
  }
}

const OP_HELP: Record<FmgrOpName, { describe: string; flags: (c: Command) => Command }> = {
  fetch: {
    describe: 'fetch a URL into a bucket',
    flags: (c) =>
      c
        .option('--url <url>', 'URL to fetch')
        .option('--bucket <bucket>', 'target bucket')
        .option('--key <key>', 'target key', collect)
        .option('--prefix <prefix>', 'key prefix')
        .option('--md5 <hex>', 'expected MD5 of the content (32 hex digits)'),
  },
  copy: {
    describe: 'copy an object',
    flags: (c) =>
      c
        .option('--from <bucket:key>', 'source object')
        .option('--bucket <bucket>', 'target bucket')
        .option('--key <key>', 'target key', collect)
        .option('--prefix <prefix>', 'target key prefix'),
  },
  move: {
    describe: 'move (rename) an object',
    flags: (c) =>
      c
        .option('--from <bucket:key>', 'source object')
        .option('--bucket <bucket>', 'target bucket')
        .option('--key <key>', 'target key', collect)
        .option('--prefix <prefix>', 'target key prefix'),
  },
  delete: {
    describe: 'delete objects (repeat --key)',
    flags: (c) => c.option('--bucket <bucket>', 'bucket').option('--key <key>', 'key to delete (repeatable)', collect),
  },
  deletePrefix: {
    describe: 'delete every object under a prefix',
    flags: (c) =>
      c
        .option('--bucket <bucket>', 'bucket')
        .option('--prefix <prefix>', 'key prefix')
        .option('--output <key>', 'key of a result listing'),
  },
  deletem3u8: {
    describe: 'delete an m3u8 playlist (with --deletets, its segments too)',
    flags: (c) =>
      c
        .option('--bucket <bucket>', 'bucket')
        .option('--key <key>', 'playlist key', collect)
        .option('--deletets', 'delete the TS segments too', false),
  },
  setdeadline: {
    describe: 'set the retention in days of a key prefix (-1 removes it)',
    flags: (c) =>
      c
        .option('--bucket <bucket>', 'bucket')
        .option('--prefix <prefix>', 'key prefix (default: the whole bucket)')
        .option('--deadline <days>', 'days, or -1'),
  },
  compress: {
    describe: 'zip objects into a new object',
    flags: (c) =>
      c
        .option('--bucket <bucket>', 'bucket of the keys')
        .option('--key <key>', 'key to include (repeatable)', collect)
        .option('--save-as <bucket:key>', 'where to save the zip'),
  },
};

/** Human lines of a task: its state, then one block per item. */
export function formatFmgrTask(t: FmgrTaskView): string {
  const lines = [
    `task ${t.persistentId}: ${t.state ?? 'no status yet'}${t.code === null ? '' : ` (code ${t.code}${t.codeSource === 'notify' ? ', from a notification' : ''})`} [${t.tracking}]`,
  ];
  if (t.error) lines.push(`  error: ${t.error.message}`);
  t.items.forEach((it, i) => {
    lines.push(`  ${i + 1}. ${it.cmd}`);
    lines.push(`     ${it.state} (code ${it.code})`);
    for (const [name, v] of [
      ['key', it.key],
      ['hash', it.hash],
      ['fsize', it.fsize],
      ['url', it.url],
      ['decompresslist', it.decompresslist],
      ['error', it.error],
    ] as const) {
      if (v !== null && v !== '') lines.push(`     ${name}: ${String(v)}`);
    }
  });
  return `${lines.join('\n')}\n`;
}

function print(flags: AccountFlags, t: FmgrTaskView, human = formatFmgrTask(t)): void {
  process.stdout.write(flags.json ? `${JSON.stringify(t)}\n` : human);
}

/** 0 when every item succeeded; 1 when one failed or the task could not be followed. */
function exitCodeOf(t: FmgrTaskView): number {
  if (t.tracking === 'lost' || t.tracking === 'failed' || t.error) return 1;
  return t.items.some((i) => FMGR_FAILED_ITEM_CODES.has(i.code)) ? 1 : 0;
}

/**
 * The task of a persistentId, asked about now: one recorded under another account (older
 * flags) is shown from the app's records when done (that account's secret may not be at
 * hand to ask again); otherwise it is tracked and polled at once. An id never seen that the
 * service does not know is not kept (the service's `fmgr.track` says 'not-found').
 */
async function statusOf(ctx: ServiceContext, persistentId: string): Promise<FmgrTaskView> {
  const known = valueOf(await ctx.api.fmgr.lookup({ accountId: ctx.accountId, persistentId }));
  if (known && known.tracking === 'done' && known.accountId !== ctx.accountId) return known;
  const r = await ctx.api.fmgr.track({ accountId: known?.accountId ?? ctx.accountId, persistentId });
  if (!r.ok && r.error.code === 'not-found')
    throw new CliError(
      `no task "${printable(persistentId)}" could be found: ${String(r.error.params.reason ?? r.error.message).replace(/[.\s]+$/, '')}; check the persistentId (submitting a task prints it) and --mgr-url`,
      1,
      'task-not-found',
    );
  return valueOf(r);
}

export function register(program: Command): void {
  const fmgr = program
    .command('fmgr')
    .description(
      'submit Fmgr file-processing tasks and follow them (fetch, copy, move, delete, deletePrefix, deletem3u8, setdeadline, compress, status)',
    );

  for (const op of Object.keys(OP_HELP) as FmgrOpName[]) {
    const spec = OP_HELP[op];
    const cmd = addAccountOptions(spec.flags(fmgr.command(op).description(`${spec.describe}; prints the persistentId`)))
      .option('--force', 'replace existing target objects (force=1)', false)
      .option('--separate', 'one notification per operation (separate=1)', false)
      .option('--wait', 'follow the task until it ends, printing its states', false)
      .option('--timeout <seconds>', 'with --wait, stop waiting after this long', seconds('--timeout'));
    cmd.action(async (o: Record<string, unknown>) => {
      const ops = opsFromFlags(op, o);
      const ctx = await openTasksService(o, true);
      try {
        const t = valueOf(
          await ctx.api.fmgr.submit({
            accountId: ctx.accountId,
            ops,
            ...(o.force === true ? { force: true } : {}),
            ...(o.separate === true ? { separate: true } : {}),
          }),
        );
        if (o.wait !== true) {
          print(ctx.flags, t, `${t.persistentId}\n`);
          return;
        }
        if (!ctx.flags.json) process.stdout.write(`${t.persistentId}\n`);
        const done = await followPrinting(ctx, t, o.timeout as number | undefined);
        print(ctx.flags, done);
        process.exitCode = exitCodeOf(done);
      } finally {
        await ctx.close();
      }
    });
  }

  addAccountOptions(
    fmgr.command('status <persistentId>').description('show the state and items of a task (by its persistentId)'),
  )
    .option('--wait', 'follow the task until it ends', false)
    .option('--timeout <seconds>', 'with --wait, stop waiting after this long', seconds('--timeout'))
    .action(async (persistentId: string, o: Record<string, unknown>) => {
      const ctx = await openTasksService(o, false);
      try {
        let t = await statusOf(ctx, persistentId);
        if (o.wait === true && t.tracking === 'active')
          t = await followPrinting(ctx, t, o.timeout as number | undefined);
        print(
          ctx.flags,
          t,
          formatFmgrTask(t) +
            (t.error && t.tracking === 'active'
              ? '  (this command asked once: run it again, or add --wait to keep asking)\n'
              : ''),
        );
        process.exitCode = exitCodeOf(t);
      } finally {
        await ctx.close();
      }
    });
}
