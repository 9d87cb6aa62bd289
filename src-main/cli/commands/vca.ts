import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { VCA_TYPES } from '../../protocol/types';
import { ReviewInputError, type LabelDecision } from '../../store/tasks/vca-repo';
import { TaskError } from '../../tasks/task-error';
import { exportCsv, exportJson } from '../../tasks/vca-export';
import type { VcaJobView } from '../../tasks/vca-view';
import { addAccountOptions } from '../account-options';
import { collect } from '../option-parsers';
import { CliError } from '../cli-error';
import { cliErrorOf, openTasksContext, seconds, waitSignal, type TasksContext } from './fmgr';

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

export function formatVcaJob(j: VcaJobView): string {
  const lines = [
    `job ${j.jobId}: ${j.state ?? 'no result yet'}${j.code === null ? '' : ` (code ${j.code})`} [${j.tracking}]`,
  ];
  if (j.sourceUrl) lines.push(`  video: ${j.sourceUrl}`);
  if (j.bucket) lines.push(`  bucket: ${j.bucket}`);
  if (j.code === 2 && j.description) lines.push(`  reason: ${j.description}`);
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

function print(ctx: TasksContext, j: VcaJobView): void {
  process.stdout.write(ctx.flags.json ? `${JSON.stringify(j)}\n` : formatVcaJob(j));
}

const exitCodeOf = (j: VcaJobView) =>
  j.code === 2 || j.tracking === 'lost' || j.tracking === 'failed' || j.error ? 1 : 0;

/**
 * The local job (found by jobId in any account of the database, so a job created under other
 * flags is not recorded twice), fetched from the service and stored when missing, refreshed
 * when not finished. A row this call made for a jobId the service does not know is removed
 * again unless `keepUnknown` (show --wait keeps asking); the view is still returned.
 */
async function localJob(ctx: TasksContext, jobId: string, keepUnknown = false): Promise<VcaJobView> {
  const known = ctx.vca.findAnyAccount(ctx.accountId, jobId.trim());
  if (known && known.tracking === 'done') return known;
  const j = known && known.tracking === 'active' ? known : ctx.vca.track(known?.accountId ?? ctx.accountId, jobId);
  const polled = (await ctx.vca.pollNow(j.id)) ?? j;
  if (!known && !keepUnknown && polled.error?.code === 'not-found') ctx.vca.forget(polled.id);
  return polled;
}

async function waitPrinting(
  ctx: TasksContext,
  jobRow: number,
  timeoutSeconds: number | undefined,
): Promise<VcaJobView> {
  const w = waitSignal(timeoutSeconds);
  const off = ctx.vca.onChange((v) => {
    if (v.id === jobRow && v.tracking === 'active' && v.error && !ctx.flags.json)
      process.stderr.write(`${v.jobId}: error: ${v.error.message}\n`);
  });
  try {
    return await ctx.vca.waitUntilSettled(jobRow, w.signal);
  } catch (e) {
    if (e instanceof TaskError && e.code === 'aborted')
      throw new CliError('stopped waiting; the job goes on, see it with: blocklift vca show <jobId>', 1);
    throw e;
  } finally {
    off();
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
      const ctx = await openTasksContext(o, true);
      try {
        const j = await ctx.vca.create({
          accountId: ctx.accountId,
          bucket: String(o.bucket),
          source: url,
          minConfidence: o.minConfidence as number | undefined,
        });
        if (o.wait !== true) {
          process.stdout.write(ctx.flags.json ? `${JSON.stringify(j)}\n` : `${j.jobId}\n`);
          return;
        }
        if (!ctx.flags.json) process.stdout.write(`${j.jobId}\n`);
        const done = await waitPrinting(ctx, j.id, o.timeout as number | undefined);
        print(ctx, done);
        process.exitCode = exitCodeOf(done);
      } catch (e) {
        throw cliErrorOf(e);
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
      const ctx = await openTasksContext(o, false);
      try {
        let j = await localJob(ctx, jobId, o.wait === true);
        if (o.wait === true && j.tracking === 'active')
          j = await waitPrinting(ctx, j.id, o.timeout as number | undefined);
        print(ctx, j);
        if (!ctx.flags.json && j.error && j.tracking === 'active')
          process.stdout.write('  (this command asked once: run it again, or add --wait to keep asking)\n');
        process.exitCode = exitCodeOf(j);
      } catch (e) {
        throw cliErrorOf(e);
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
      const ctx = await openTasksContext(o, false);
      try {
        let j = await localJob(ctx, jobId);
        if (j.code !== 3)
          throw new CliError(`job ${j.jobId} has no labels to review (${j.state ?? 'no result yet'})`, 1);
        const decisions: [string, LabelDecision, string | undefined][] = [
          ...((o.accept as string[] | undefined) ?? []).map(
            (r) => [r, 'accepted', undefined] as [string, LabelDecision, undefined],
          ),
          ...((o.reject as string[] | undefined) ?? []).map(
            (r) => [r, 'rejected', undefined] as [string, LabelDecision, undefined],
          ),
          ...((o.undo as string[] | undefined) ?? []).map(
            (r) => [r, 'pending', undefined] as [string, LabelDecision, undefined],
          ),
          ...((o.correct as string[] | undefined) ?? []).map((r): [string, LabelDecision, string] => {
            const eq = r.lastIndexOf('=');
            if (eq <= 0) throw new CliError(`--correct takes label=text, not "${r}"`);
            return [r.slice(0, eq), 'corrected', r.slice(eq + 1)];
          }),
        ];
        const ids = decisions.map(([ref, d, text]) => [findLabel(j, ref), d, text] as const);
        ctx.db.transaction(() => {
          for (const [id, d, text] of ids) j = ctx.vca.decide(id, d, text);
          if (o.minConfidence !== undefined) j = ctx.vca.setMinConfidence(j.id, o.minConfidence as number);
        })();
        print(ctx, j);
      } catch (e) {
        if (e instanceof ReviewInputError) throw new CliError(e.message);
        throw cliErrorOf(e);
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
      const ctx = await openTasksContext(o, false);
      try {
        const rows: number[] = [];
        for (const id of jobIds) {
          const j = await localJob(ctx, id);
          if (j.code === 2)
            throw new CliError(`job ${j.jobId} failed (${j.description ?? 'no reason given'}); it has no labels`, 1);
          if (j.code !== 3) {
            const why = j.error
              ? j.error.message
              : `it is ${j.state ?? 'not answered yet'}; wait with: blocklift vca show ${j.jobId} --wait`;
            throw new CliError(`job ${j.jobId} has no labels yet: ${why}`, 1);
          }
          rows.push(j.id);
        }
        const exported = ctx.vca.exportRows(rows);
        // On standard output --json means what it means for every command: one object per
        // line. A file written with --out keeps the JSON array that tools expect of a .json file.
        const text =
          format === 'csv'
            ? exportCsv(exported)
            : typeof o.out === 'string'
              ? exportJson(exported)
              : exported.map((r) => `${JSON.stringify(r)}\n`).join('');
        if (typeof o.out === 'string') {
          try {
            writeFileSync(o.out, text);
          } catch (e) {
            throw new CliError(`cannot write ${o.out}: ${(e as Error).message}`, 1);
          }
          process.stderr.write(`${exported.length} labels written to ${o.out}\n`);
        } else {
          process.stdout.write(text);
        }
      } catch (e) {
        throw cliErrorOf(e);
      } finally {
        await ctx.close();
      }
    });
}
