import type { AppEventMessage, AppEvents, Settings, TransferTotals } from '../shared/contract';
// The window's formatter (1 MB = 1,024 KB), so the tray and the window show one number.
import { formatSpeed } from '../common/units';

/**
 * What the tray, the taskbar and native notifications show, decided from the event stream
 * alone. Pure: no Electron here (main.ts applies the decisions), so the decisions are unit
 * tested with plain event sequences.
 */

export type TrayStatus =
  | { kind: 'idle' }
  | { kind: 'uploading'; count: number; bytesPerSecond: number }
  | { kind: 'paused'; count: number }
  | { kind: 'error'; failed: number };

export interface DesktopNotification {
  title: string;
  body: string;
}

export interface DesktopView {
  tray: TrayStatus;
  /** Tray tooltip. */
  tooltip: string;
  /** Taskbar/dock progress 0…1, or -1 for none. */
  progress: number;
  /** Keep the system awake (powerSaveBlocker) now. */
  keepAwake: boolean;
  /** Menu: "Pause all" is offered when something runs, "Resume all" when something is paused. */
  canPause: boolean;
  canResume: boolean;
}

const ACTIVE: ReadonlyArray<keyof TransferTotals> = ['queued', 'hashing', 'uploading', 'completing'];

export function trayStatus(totals: TransferTotals | null, throughput: number): TrayStatus {
  if (!totals) return { kind: 'idle' };
  const active = ACTIVE.reduce((n, s) => n + totals[s], 0);
  if (active > 0) return { kind: 'uploading', count: active, bytesPerSecond: throughput };
  if (totals.paused > 0) return { kind: 'paused', count: totals.paused };
  if (totals.failed > 0) return { kind: 'error', failed: totals.failed };
  return { kind: 'idle' };
}

export function tooltip(s: TrayStatus): string {
  switch (s.kind) {
    case 'idle':
      return 'Blocklift — idle';
    case 'uploading':
      return `Blocklift — uploading ${s.count} at ${formatSpeed(s.bytesPerSecond)}`;
    case 'paused':
      return `Blocklift — paused (${s.count})`;
    case 'error':
      return `Blocklift — ${s.failed} failed`;
  }
}

/**
 * Folds the event stream into what the desktop shows. `apply` returns the notifications an
 * event calls for (already filtered by the notification settings): one when a batch of
 * manual transfers finishes, one per transfer that fails for good (once per failure; a
 * retried transfer that fails again notifies again).
 */
export class DesktopStatus {
  private totals: TransferTotals | null = null;
  private throughput = 0;
  private settings: Settings | null = null;
  /** Bytes done and size of every transfer seen moving, until it leaves the active states. */
  private readonly moving = new Map<number, { done: number; size: number }>();
  private readonly notifiedFailures = new Set<number>();

  constructor(settings: Settings | null = null) {
    this.settings = settings;
  }

  apply(event: AppEventMessage): DesktopNotification[] {
    switch (event.name) {
      case 'transfers':
        return this.onTransfers(event.payload);
      case 'settings':
        this.settings = event.payload;
        return [];
      case 'batchFinished':
        return this.onBatch(event.payload);
      default:
        return [];
    }
  }

  view(): DesktopView {
    const tray = trayStatus(this.totals, this.throughput);
    let done = 0;
    let size = 0;
    for (const m of this.moving.values()) {
      done += m.done;
      size += m.size;
    }
    return {
      tray,
      tooltip: tooltip(tray),
      progress: tray.kind === 'uploading' && size > 0 ? Math.min(1, done / size) : -1,
      keepAwake: tray.kind === 'uploading' && (this.settings?.keepAwake ?? false),
      canPause: tray.kind === 'uploading',
      canResume: (this.totals?.paused ?? 0) > 0,
    };
  }

  private onTransfers(batch: AppEvents['transfers']): DesktopNotification[] {
    this.totals = batch.totals;
    this.throughput = batch.throughput;
    for (const p of batch.progress) this.moving.set(p.id, { done: p.bytesDone, size: p.size });
    for (const id of batch.removed) this.moving.delete(id);
    const out: DesktopNotification[] = [];
    for (const t of batch.changed) {
      if (!ACTIVE.includes(t.state as keyof TransferTotals)) this.moving.delete(t.id);
      if (t.state !== 'failed') {
        this.notifiedFailures.delete(t.id);
        continue;
      }
      if (this.notifiedFailures.has(t.id)) continue;
      this.notifiedFailures.add(t.id);
      if (this.settings?.notifications.failures ?? true)
        out.push({ title: 'Upload failed', body: `${t.key}: ${t.lastError?.message ?? 'failed'}` });
    }
    if (this.totals && ACTIVE.every((s) => this.totals?.[s] === 0)) this.moving.clear();
    return out;
  }

  private onBatch(b: AppEvents['batchFinished']): DesktopNotification[] {
    if (!(this.settings?.notifications.batchFinished ?? true)) return [];
    const parts = [`${b.done} uploaded`];
    if (b.failed) parts.push(`${b.failed} failed`);
    if (b.skipped) parts.push(`${b.skipped} skipped`);
    if (b.canceled) parts.push(`${b.canceled} canceled`);
    return [{ title: b.failed ? 'Uploads finished with failures' : 'Uploads finished', body: parts.join(', ') }];
  }
}
