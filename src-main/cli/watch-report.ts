import { createInterface } from 'node:readline/promises';
import { printable } from '../shared/keys';
import type { RootActivityView, RootPlan, TransferView } from '../shared/contract';
import type { WatchEvent } from '../shared/events';
import type { VcaJobView } from '../shared/task-views';
import { fileCount, formatBytes, formatSpeed } from '../common/units';
import type { CliApp } from './app-client';
import { RetryNotices, clockTime } from './retry-notices';

/** What `blocklift watch` prints: the plan of a new folder (and the question), then what the app reports about it. */

export function printPlan(plan: RootPlan, json: boolean, out: NodeJS.WritableStream = process.stdout): void {
  if (json) {
    out.write(`${JSON.stringify({ type: 'plan', ...plan })}\n`);
    return;
  }
  const lines = [
    `new        ${fileCount(plan.newFiles)}, ${formatBytes(plan.newBytes)}`,
    `changed    ${fileCount(plan.changedFiles)}, ${formatBytes(plan.changedBytes)}`,
    `retry      ${fileCount(plan.retryFiles)}, ${formatBytes(plan.retryBytes)}`,
    `unchanged  ${fileCount(plan.unchangedFiles)}, ${formatBytes(plan.unchangedBytes)}`,
    `ignored    ${fileCount(plan.ignoredFiles)}, ${formatBytes(plan.ignoredBytes)}`,
    `renamed    ${fileCount(plan.renamedFiles)} (server-side, no upload)`,
    `rejected   ${fileCount(plan.rejectedFiles)} (names the service cannot take)`,
    `to upload  ${fileCount(plan.filesToUpload)}, ${formatBytes(plan.bytesToUpload)}` +
      (plan.estimatedSeconds === null
        ? ''
        : `, about ${Math.ceil(plan.estimatedSeconds)} s at ${formatSpeed(plan.assumedBytesPerSecond)} (${plan.speedSource === 'measured' ? 'measured from recent transfers of this database' : 'assumed; no transfers measured yet'})`),
    ...plan.rejected.map((r) => `  rejected ${printable(r.relPath)}: ${r.message}`),
    ...plan.problems.map((p) => `  problem ${printable(p.relPath)}: ${p.message}`),
  ];
  out.write(`${lines.join('\n')}\n`);
}

/**
 * Plan-and-confirm for a folder new to this database: on a terminal, prints the plan and
 * asks (unless --yes); in a script (no TTY), prints the plan to stderr and goes on.
 * Returns false when the user declined.
 */
export async function confirmNewRoot(plan: RootPlan, json: boolean, yes: boolean): Promise<boolean> {
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  if (!tty) {
    printPlan(plan, json, process.stderr);
    return true;
  }
  printPlan(plan, json);
  if (yes) return true;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question('Start uploading? [y/N] ');
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** One line per finished file on stdout (JSON with --json); everything else on stderr. */
function report(e: WatchEvent, json: boolean): void {
  if (e.type === 'file-done') {
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ path: e.relPath, key: e.key, hash: e.etag, size: e.size, status: e.status, ...(e.from ? { from: e.from } : {}), ...(e.error ? { error: e.error } : {}) })}\n`,
      );
    } else {
      process.stdout.write(
        `${e.status.padEnd(8)} ${printable(e.relPath)} → ${printable(e.key)} (${e.size} bytes)${e.etag ? ` ${e.etag}` : ''}${e.error ? `: ${e.error.message}` : ''}\n`,
      );
    }
  } else if (e.type === 'rejected' || e.type === 'problem') {
    process.stderr.write(`blocklift: ${e.relPath ? printable(e.relPath) : '(root)'}: ${e.message}\n`);
  } else if (e.type === 'state' && (e.state === 'unavailable' || e.state === 'watching')) {
    process.stderr.write(`blocklift: ${e.state}${e.reason ? `: ${e.reason}` : ''}\n`);
  } else if (e.type === 'scan-finished') {
    const c = e.counts;
    process.stderr.write(
      `blocklift: reconciled in ${e.durationMs} ms: ${c.newFiles} new, ${c.changedFiles} changed, ${c.unchangedFiles} unchanged, ${c.ignoredFiles} ignored, ${c.waitingFiles} still being written\n`,
    );
  }
}

/** One line when a video's analysis ends: its labels (JSON with --json, as `vca show` gives them). */
function reportVcaJob(job: VcaJobView, json: boolean): void {
  const labels = job.results.flatMap((g) =>
    g.labels.map((l) => ({ type: g.type, label: l.correctedText ?? l.attribute, confidence: l.confidence })),
  );
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ vcaJob: job.jobId, source: job.sourceUrl, state: job.state, labels, ...(job.error ? { error: job.error } : {}) })}\n`,
    );
  } else {
    const text = labels.map((l) => `${l.label} ${l.confidence}`).join(', ');
    process.stdout.write(
      `vca      ${job.sourceUrl ?? job.jobId}: ${job.state ?? job.error?.message ?? job.tracking}${text ? ` (${text})` : ''}\n`,
    );
  }
}

/**
 * Prints what the app reports about this folder, from its event batches: finished files,
 * rejections, scans and states (`rootActivity`), a retry during an outage, a video's
 * analysis when it ends; in this process also the app's own problems. Events of the folder
 * seen before its id is known are kept and printed once it is. Returns the unsubscribe.
 */
export function printActivity(app: CliApp, json: boolean, bucket: string): { setRoot(id: number): void; stop(): void } {
  let rootId: number | undefined;
  const early: RootActivityView[] = [];
  const views = new Map<number, TransferView>();
  const notices = new RetryNotices();
  const saidVca = new Set<number>();
  const off = app.api.on((e) => {
    if (e.name === 'rootActivity') {
      for (const a of e.payload.events)
        if (rootId === undefined) early.push(a);
        else if (a.rootId === rootId) report(a, json);
    } else if (e.name === 'transfers') {
      for (const v of e.payload.changed) views.set(v.id, v);
      for (const p of e.payload.progress) {
        const v = views.get(p.id);
        if (!v || v.rootId !== rootId) continue;
        const n = notices.accept(p);
        if (n) reportRetry(v, n.reason, n.nextAttemptAt, json);
      }
    } else if (e.name === 'vca') {
      for (const j of e.payload.changed)
        if (
          j.tracking !== 'active' &&
          !saidVca.has(j.id) &&
          (!app.handedTo || (j.origin === 'watch' && j.bucket === bucket))
        ) {
          saidVca.add(j.id);
          reportVcaJob(j, json);
        }
    } else if (e.name === 'problems' && !app.handedTo) {
      // The folder's own problems come as rootActivity; these are the app's.
      for (const p of e.payload.problems) if (p.rootId === undefined) process.stderr.write(`blocklift: ${p.message}\n`);
    }
  });
  return {
    setRoot: (id) => {
      rootId = id;
      for (const a of early.splice(0)) if (a.rootId === id) report(a, json);
    },
    stop: off,
  };
}

/** Says at once when the engine will retry (an outage must not look like silence), on stderr (a JSON line with --json). */
function reportRetry(v: TransferView, reason: string, nextAttemptAt: number, json: boolean): void {
  if (json) {
    const at = new Date(nextAttemptAt).toISOString();
    const line = { status: 'retrying', key: v.key, path: v.localPath, reason, nextAttemptAt: at };
    process.stderr.write(`${JSON.stringify(line)}\n`);
  } else
    process.stderr.write(
      `blocklift: retrying ${printable(v.key)}: ${reason}; next attempt at ${clockTime(nextAttemptAt)}\n`,
    );
}
