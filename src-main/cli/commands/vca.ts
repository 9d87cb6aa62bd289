import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { VCA_CODE, VCA_TYPES, type VcaJobView, type VcaLabelDecision } from '../../shared/task-views';
import { addAccountOptions } from '../account-options';
import { collect } from '../option-parsers';
import { CliError } from '../cli-error';
import { openTasksService, seconds, waitSignal, type ServiceContext } from '../tasks-context';
import { followUntilSettled } from '../follow';
import { valueOf } from '../service-result';

/**
 * `blocklift vca create <url> --bucket <b> [--wait]`, `vca show <jobId> [--wait]`,
 * `vca review <jobId> …` and `vca export <jobId…> --csv|--json [--out file]`.
 *
 * Jobs live in the app's SQLite file (--db) under the management host's session account
 * (fmgr.ts sessionAccountName); `show`, `review` and `export` find a job by its jobId in
 * any account first. Those of a job that is not in it yet fetch it from the service and store it first (origin
 * 'typed', so its video URL is unknown and exported as ''); a job still analysing is
 * asked about again. Exit codes: 0 ok; 1 analysis failed, job unknown, or service error;
 * 2 bad usage.
 */

function threshold(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new CliError(`--min-confidence must be a number from 0 to 1, not "${v}"`);
  return n;
}

/** The service's schema refuses a non-URL with a generic message; this one says what to give. */
function videoUrl(source: string): void {
  let u: URL | undefined;
  try {
    u = new URL(source);
  } catch {
    /* said below */
  }
  if (!u)
    throw new CliError(
      `"${source.slice(0, 200)}" is not a complete URL; give the video's address like https://example.com/video.mp4`,
    );
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new CliError(`the video URL must start with http:// or https://, not ${u.protocol}`);
}

export function formatVcaJob(j: VcaJobView): string {
  const lines = [
    `job ${j.jobId}: ${j.state ?? 'no result yet'}${j.code === null ? '' : ` (code ${j.code})`} [${j.tracking}]`,
  ];
  if (j.sourceUrl) lines.push(`  video: ${j.sourceUrl}`);
  if (j.bucket) lines.push(`  bucket: ${j.bucket}`);
  if (j.code === VCA_CODE.failed && j.description) lines.push(`  reason: ${j.description}`);
  if (j.notifyState !== null) lines.push(`  notification: ${j.notifyState}`);
  if (j.error) lines.push(`  error: ${j.error.message}`);
  if (j.results.length) lines.push(`  labels (minimum confidence ${j.minConfidence}):`);
  for (const g of j.results) {
    lines.push(`    ${g.type}:`);
    for (const l of g.labels) {
      const mark =
        l.effective === 'accepted' || l.effective === 'corrected' || l.effective === 'above-threshold' ? '+' : '-';
      const text = l.decision === 'corrected' ? `${l.correctedText} (was ${l.attribute})` : l.attribute;
      lines.push(`      ${mark} ${text}  ${l.confidence}  ${l.effective}  [label ${l.id}]`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function print(ctx: { flags: { json: boolean } }, j: VcaJobView): void {
  process.stdout.write(ctx.flags.json ? `${JSON.stringify(j)}\n` : formatVcaJob(j));
}

const exitCodeOf = (j: VcaJobView) =>
  j.code === VCA_CODE.failed || j.tracking === 'lost' || j.tracking === 'failed' || j.error ? 1 : 0;

/**
 * The app's job of a jobId (found in any account first, so a job created under other flags
 * is not recorded twice): one done is shown as recorded; otherwise it is tracked and asked
 * about at once. A jobId never seen that the service does not know is not kept (the
 * service's `vca.track` says 'not-found': exit 1 with the service's words).
 */
async function localJob(ctx: ServiceContext, jobId: string): Promise<VcaJobView> {
  const known = valueOf(await ctx.api.vca.lookup({ accountId: ctx.accountId, jobId }));
  if (known && known.tracking === 'done') return known;
  const r = await ctx.api.vca.track({ accountId: known?.accountId ?? ctx.accountId, jobId });
  if (!r.ok && r.error.code === 'not-found') throw new CliError(r.error.message, 1, 'job-not-found');
  return valueOf(r);
}

/** Follows a job through the service's `vca` batches until it settles; an error while it is active goes to stderr. */
async function followJob(ctx: ServiceContext, jobRow: number, timeoutSeconds: number | undefined): Promise<VcaJobView> {
  const w = waitSignal(timeoutSeconds);
  try {
    return await followUntilSettled<VcaJobView>({
      service: ctx.api,
      area: 'vca',
      id: jobRow,
      get: () => ctx.api.vca.get({ id: jobRow }),
      signal: w.signal,
      onActive: (v) => {
        if (v.error && !ctx.flags.json) process.stderr.write(`${v.jobId}: error: ${v.error.message}\n`);
      },
      stopped: () => new CliError('stopped waiting; the job goes on, see it with: blocklift vca show <jobId>', 1),
    });
  } finally {
    w.dispose();
  }
}

/** Finds a label of a job by "type:attribute" (or a bare attribute when it is unique) or by its id. */
function findLabel(j: VcaJobView, ref: string): number {
  if (/^\d+$/.test(ref)) {
    const id = Number(ref);
    if (j.results.some((g) => g.labels.some((l) => l.id === id))) return id;
  }
  const i = ref.indexOf(':');
  const prefix = ref.slice(0, i);
  const type =
    i > 0 && ((VCA_TYPES as readonly string[]).includes(prefix) || j.results.some((g) => g.type === prefix))
      ? prefix
      : undefined;
  const attr = type ? ref.slice(i + 1) : ref;
  const hits = j.results
    .filter((g) => !type || g.type === type)
    .flatMap((g) => g.labels.filter((l) => l.attribute === attr));
  if (hits.length === 1) return hits[0]!.id;
  if (hits.length === 0)
    throw new CliError(`job ${j.jobId} has no label "${ref}"; see the labels with: blocklift vca show ${j.jobId}`);
  throw new CliError(`"${ref}" names labels of several types; write it as type:label (for example scenario:${attr})`);
}

export function register(program: Command): void {
  const vca = program
    .command('vca')
    .description('video content analysis: create jobs, show labels, review them, export accepted labels');

  addAccountOptions(vca.command('create <url>').description('analyse the video at <url>; prints the jobId'))
    .requiredOption('--bucket <bucket>', 'bucket the video belongs to')
    .option(
      '--min-confidence <0..1>',
      'labels nobody decided on count as accepted from this confidence (default 0.5)',
      threshold,
    )
    .option('--wait', 'wait for the result and show it', false)
    .option('--timeout <seconds>', 'with --wait, stop waiting after this long', seconds('--timeout'))
    .action(async (url: string, o: Record<string, unknown>) => {
      videoUrl(url);
      const ctx = await openTasksService(o, true);
      try {
        const j = valueOf(
          await ctx.api.vca.create({
            accountId: ctx.accountId,
            source: { url, bucket: String(o.bucket) },
            ...(o.minConfidence !== undefined ? { minConfidence: o.minConfidence as number } : {}),
          }),
        );
        if (o.wait !== true) {
          process.stdout.write(ctx.flags.json ? `${JSON.stringify(j)}\n` : `${j.jobId}\n`);
          return;
        }
        if (!ctx.flags.json) process.stdout.write(`${j.jobId}\n`);
        const done = await followJob(ctx, j.id, o.timeout as number | undefined);
        print(ctx, done);
        process.exitCode = exitCodeOf(done);
      } finally {
        await ctx.close();
      }
    });

  addAccountOptions(
    vca.command('show <jobId>').description('show a job, its labels by type with confidences and review decisions'),
  )
    .option('--wait', 'wait until the analysis ends', false)
    .option('--timeout <seconds>', 'with --wait, stop waiting after this long', seconds('--timeout'))
    .action(async (jobId: string, o: Record<string, unknown>) => {
      const ctx = await openTasksService(o, false);
      try {
        let j = await localJob(ctx, jobId);
        if (o.wait === true && j.tracking === 'active') j = await followJob(ctx, j.id, o.timeout as number | undefined);
        print(ctx, j);
        if (!ctx.flags.json && j.error && j.tracking === 'active')
          process.stdout.write('  (this command asked once: run it again, or add --wait to keep asking)\n');
        process.exitCode = exitCodeOf(j);
      } finally {
        await ctx.close();
      }
    });

  addAccountOptions(
    vca
      .command('review <jobId>')
      .description('record review decisions; labels as type:label, a bare label, or a label id'),
  )
    .option('--accept <label>', 'accept a label (repeatable)', collect)
    .option('--reject <label>', 'reject a label (repeatable)', collect)
    .option('--correct <label=text>', 'keep a label under corrected text (repeatable)', collect)
    .option('--undo <label>', 'take a decision back (repeatable)', collect)
    .option('--min-confidence <0..1>', 'threshold for labels nobody decided on', threshold)
    .action(async (jobId: string, o: Record<string, unknown>) => {
      const ctx = await openTasksService(o, false);
      try {
        let j = await localJob(ctx, jobId);
        if (j.code !== VCA_CODE.succeeded)
          throw new CliError(`job ${j.jobId} has no labels to review (${j.state ?? 'no result yet'})`, 1);
        const decisions: [string, VcaLabelDecision, string | undefined][] = [
          ...((o.accept as string[] | undefined) ?? []).map(
            (r) => [r, 'accepted', undefined] as [string, VcaLabelDecision, undefined],
          ),
          ...((o.reject as string[] | undefined) ?? []).map(
            (r) => [r, 'rejected', undefined] as [string, VcaLabelDecision, undefined],
          ),
          ...((o.undo as string[] | undefined) ?? []).map(
            (r) => [r, 'pending', undefined] as [string, VcaLabelDecision, undefined],
          ),
          ...((o.correct as string[] | undefined) ?? []).map((r): [string, VcaLabelDecision, string] => {
            const eq = r.lastIndexOf('=');
            if (eq <= 0) throw new CliError(`--correct takes label=text, not "${r}"`);
            return [r.slice(0, eq), 'corrected', r.slice(eq + 1)];
          }),
        ];
        const ids = decisions.map(([ref, d, text]) => [findLabel(j, ref), d, text] as const);
        for (const [labelId, decision, correctedText] of ids)
          j = valueOf(
            await ctx.api.vca.decide({
              jobId: j.id,
              labelId,
              decision,
              ...(correctedText !== undefined ? { correctedText } : {}),
            }),
          );
        if (o.minConfidence !== undefined)
          j = valueOf(await ctx.api.vca.setThreshold({ jobId: j.id, minConfidence: o.minConfidence as number }));
        print(ctx, j);
      } finally {
        await ctx.close();
      }
    });

  addAccountOptions(
    vca
      .command('export <jobIds...>')
      .description('export accepted labels, one row per video and label (RFC 4180 CSV or JSON)'),
  )
    .option(
      '--csv',
      'RFC 4180 CSV with a header row, UTF-8 with a byte order mark (for Excel); a text cell starting with = + - @, tab or CR gets a leading apostrophe so a spreadsheet shows it instead of running it as a formula (OWASP CSV injection advice)',
      false,
    )
    .option('--out <file>', 'write to this file instead of standard output')
    .action(async (jobIds: string[], o: Record<string, unknown>) => {
      // --json is the shared "machine output" flag; here it picks the JSON format.
      const format = o.csv === true ? 'csv' : o.json === true ? 'json' : undefined;
      if (!format || (o.csv === true && o.json === true))
        throw new CliError('vca export needs exactly one of --csv or --json');
      const ctx = await openTasksService(o, false);
      try {
        const rows: number[] = [];
        for (const id of jobIds) {
          const j = await localJob(ctx, id);
          if (j.code === VCA_CODE.failed)
            throw new CliError(`job ${j.jobId} failed (${j.description ?? 'no reason given'}); it has no labels`, 1);
          if (j.code !== VCA_CODE.succeeded) {
            const why = j.error
              ? j.error.message
              : `it is ${j.state ?? 'not answered yet'}; wait with: blocklift vca show ${j.jobId} --wait`;
            throw new CliError(`job ${j.jobId} has no labels yet: ${why}`, 1);
          }
          rows.push(j.id);
        }
        const file = valueOf(await ctx.api.vca.export({ jobIds: rows, format }));
        // --json means what it means for every command: one object per line; and --out
        // writes exactly what standard output would have shown.
        const exported = format === 'json' ? (JSON.parse(file.content) as unknown[]) : undefined;
        const text = exported ? exported.map((r) => `${JSON.stringify(r)}\n`).join('') : file.content;
        if (typeof o.out === 'string') {
          try {
            writeFileSync(o.out, text);
          } catch (e) {
            throw new CliError(`cannot write ${o.out}: ${(e as Error).message}`, 1);
          }
          process.stderr.write(`${exported ? `${exported.length} labels` : 'the labels'} written to ${o.out}\n`);
        } else {
          process.stdout.write(text);
        }
      } finally {
        await ctx.close();
      }
    });
}
