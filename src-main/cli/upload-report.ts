import cliProgress from 'cli-progress';
import { printable } from '../shared/keys';
import type { AddTransfersResult, TransferView } from '../shared/contract';
import { formatBytes, formatEta, formatSpeed } from '../common/units';
import { clockTime } from './retry-notices';

/**
 * What `blocklift upload` prints. With --json one JSON object per line on stdout:
 *   finished file  {key, hash, size, status: done|failed|skipped|canceled, verified, path, error?, warning?,
 *                   persistentId? (the Fmgr task the upload's policy started; the app tracks it),
 *                   copiedFrom? {bucket, key} (its bytes were stored already: copied on the service, not sent)}
 *   not sent again {key, hash, size, status: 'unchanged', path, message}
 *   left out       {path, status: 'skipped', reason, code}
 *   retrying       {status: 'retrying', key, path, reason, nextAttemptAt}  (on stderr)
 * `verified` is true only when the service's hash equalled the etag computed while reading
 * (a 579 or a callback reply without hash is done but not verified; its text line says so).
 * A key that already held exactly this file (a killed run's upload that landed before its
 * record, or the same bytes from another database) is done and verified, its warning
 * `already there: …` (engine/complete.ts asks the service's stat after a 406).
 * A file whose bytes the account had stored already is copied on the service from that
 * object (engine/same-bytes.ts): done and verified, its line saying
 * `copied on the service from <key>` (with the bucket when it is another one).
 * On a terminal a progress bar on stderr whose total is the whole upload's size from the
 * start (per-file lines are printed when it stops); otherwise one text line per event.
 * Names are printed with control characters escaped, so one file is one line.
 */

export class UploadReporter {
  private readonly bar: cliProgress.SingleBar | undefined;
  private readonly bytes = new Map<number, number>();
  private readonly held: string[] = [];
  private readonly startedMs = performance.now();
  private finishedCount = 0;

  constructor(
    private readonly json: boolean,
    private readonly fileCount: number,
    /** The size of the whole upload in bytes, known before any file starts. */
    private readonly totalBytes: number,
  ) {
    if (!json && process.stderr.isTTY && fileCount > 0) {
      this.bar = new cliProgress.SingleBar(
        {
          format: ' {bar} {percentage}% | {doneText}/{totalText} | {speedText} | ETA {eta} | {files}/{fileCount} files',
          stream: process.stderr,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(Math.max(1, totalBytes), 0, this.payload(0));
    }
  }

  /** A transfer's bytes done so far (a continued one starts at its committed bytes). */
  progress(id: number, done: number): void {
    this.bytes.set(id, done);
    this.redraw();
  }

  skipped(k: AddTransfersResult['skipped'][number]): void {
    this.line(
      { path: k.path, status: 'skipped', reason: k.reason, code: k.code },
      `skipped  ${printable(k.path)}: ${k.reason}`,
    );
  }

  unchanged(a: AddTransfersResult['alreadyUploaded'][number]): void {
    const message = 'already uploaded, unchanged (--overwrite sends it again)';
    this.line(
      { key: a.key, hash: a.etag, size: a.size, status: 'unchanged', path: a.path, message },
      `unchanged ${printable(a.key)} (${a.size} bytes) ${a.etag ?? ''}: ${message}`,
    );
  }

  /** The engine will try again at `nextAttemptAt` (ms since the epoch) after `reason`. */
  retrying(s: { key: string; localPath: string }, reason: string, nextAttemptAt: number): void {
    const at = new Date(nextAttemptAt);
    const text = `retrying ${printable(s.key)}: ${reason}; next attempt at ${clockTime(nextAttemptAt)}`;
    if (this.json) {
      // On stderr: stdout holds one line per file and its outcome, for programs that read it.
      const line = { status: 'retrying', key: s.key, path: s.localPath, reason, nextAttemptAt: at.toISOString() };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    } else if (this.bar) {
      // Above the bar, at once: a frozen bar with no word is what a person must not see.
      this.bar.stop();
      process.stderr.write(`${text}\n`);
      this.bar.start(Math.max(1, this.totalBytes), this.doneBytes(), this.payload(this.doneBytes()));
    } else process.stderr.write(`${text}\n`);
  }

  /** Said once: a transfer waits for the upload schedule (set in the app's Settings). */
  heldBySchedule(): void {
    const text = "waiting for the upload schedule's next window (the app's Settings set it)";
    if (this.json) process.stderr.write(`${JSON.stringify({ status: 'waiting', reason: 'schedule' })}\n`);
    else if (this.bar) {
      this.bar.stop();
      process.stderr.write(`${text}\n`);
      this.bar.start(Math.max(1, this.totalBytes), this.doneBytes(), this.payload(this.doneBytes()));
    } else process.stderr.write(`${text}\n`);
  }

  finished(s: TransferView): void {
    this.finishedCount++;
    this.bytes.set(s.id, s.state === 'done' ? s.size : (this.bytes.get(s.id) ?? 0));
    const verified = s.verified;
    const line = {
      key: s.key,
      hash: s.state === 'done' ? s.etag : null,
      size: s.size,
      status: s.state,
      verified,
      path: s.localPath,
      ...(s.lastError ? { error: s.lastError } : {}),
      ...(s.warning ? { warning: s.warning } : {}),
      ...(s.persistentId ? { persistentId: s.persistentId } : {}),
      ...(s.copiedFrom ? { copiedFrom: s.copiedFrom } : {}),
    };
    const hash = s.state === 'done' ? ` ${s.etag}${verified ? '' : ' NOT VERIFIED'}` : '';
    const task = s.persistentId
      ? ` (Fmgr task ${printable(s.persistentId)}: blocklift fmgr status ${printable(s.persistentId)})`
      : '';
    const copied = s.copiedFrom ? `: ${copiedText(s.copiedFrom, s.bucket)}` : '';
    const text = `${s.state.padEnd(8)} ${printable(s.key)}${s.state === 'done' || s.size > 0 ? ` (${s.size} bytes)` : ''}${hash}${copied}${s.lastError ? `: ${s.lastError.message}` : ''}${s.warning ? ` [${s.warning}]` : ''}${task}`;
    this.line(line, text);
    this.redraw();
  }

  private line(json: object, text: string): void {
    if (this.json) process.stdout.write(`${JSON.stringify(json)}\n`);
    else if (this.bar) this.held.push(text);
    else process.stdout.write(`${text}\n`);
  }

  private doneBytes(): number {
    let done = 0;
    for (const b of this.bytes.values()) done += b;
    return Math.min(done, this.totalBytes);
  }

  private payload(done: number) {
    const seconds = (performance.now() - this.startedMs) / 1000;
    const rate = seconds > 0.5 ? done / seconds : 0;
    return {
      doneText: formatBytes(done),
      totalText: formatBytes(this.totalBytes),
      speedText: formatSpeed(rate),
      eta: etaText(rate, this.totalBytes - done),
      files: this.finishedCount,
      fileCount: this.fileCount,
    };
  }

  private redraw(): void {
    if (!this.bar) return;
    const done = this.doneBytes();
    this.bar.update(done, this.payload(done));
  }

  stop(): void {
    this.bar?.stop();
    for (const line of this.held) process.stdout.write(`${line}\n`);
  }
}

/** "copied on the service from <key>" (the words of the app's transfer detail), the bucket named when it is another. */
export function copiedText(from: { bucket: string; key: string }, bucket: string): string {
  const where = from.bucket === bucket ? printable(from.key) : `${printable(from.key)} in ${printable(from.bucket)}`;
  return `copied on the service from ${where} (bytes stored already, not sent again)`;
}

/** "1 min 5 s" (the window's ETA), or "--" while there is no rate to go by: never NaN or Infinity. */
export function etaText(bytesPerSec: number, remaining: number): string {
  if (!(bytesPerSec > 0) || !Number.isFinite(remaining)) return '--';
  const s = Math.max(0, Math.round(remaining / bytesPerSec));
  if (!Number.isFinite(s)) return '--';
  return formatEta(s) ?? '0 s';
}
