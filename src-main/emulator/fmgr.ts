import { StopGroup } from './stop-group';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Base64Error, urlsafeB64DecodeText, urlsafeB64Encode } from '../protocol/base64';
import { fmgrNotificationState } from '../protocol/codes';
import { FMGR_OPS, FopsSyntaxError, parseFop, type FmgrOpName } from '../protocol/fops';
import { checkManagementAuth } from './auth';
import type { EmulatorContext } from './contracts';
import { runFmgrOp, FmgrOpError } from './fmgr-ops';
import { ObjectStoreError } from './object-store';
import {
  FmgrTaskStore,
  taskStatusBody,
  type FmgrItemRecord,
  type FmgrStatusBody,
  type FmgrTaskRecord,
} from './fmgr-store';
import { HttpError, parseForm, readBody, sendJson } from './http-util';
import {
  DEFAULT_NOTIFY_RETRY,
  NotifyUrlError,
  parseNotifyUrl,
  sendNotification,
  sleep,
  type NotifyRetry,
} from './notify';

/**
 * The emulator's Fmgr service: `POST /fmgr/<op>` (management token, form body
 * `fops=…&notifyURL=<b64>&force=0|1&separate=0|1`, answer `{persistentId}`) and
 * `GET /fmgr/status?persistentId=` (no auth; 400 without an id, 404 for an unknown one;
 * errors `{code: <number>, message}`).
 *
 * A task runs asynchronously, its items one after another:
 *   task 0 pending → 1 processing → 3 finished [→ 4 notifying → 6 succeeded | 5 failed]
 *   item 0 → 1 → 3 succeeded | 2 failed [→ 4|18 notifying → 6|20 notified | 5|19 notification failed]
 * Each state lasts at least `stepDelayMs` so a poller can see it. Notifications (when the
 * task has a notifyURL) are POSTed as text/plain, body = URL-safe Base64 of the task JSON,
 * signed (notify.ts), retried per `notifyRetry`:
 * - separate=0: one notification when every item is done, top-level code 3, all items;
 * - separate=1: one per item as soon as it is done, carrying that item only, top-level
 *   code 1 while other items are still pending or processing, else 2 when some item
 *   failed, else 3 (the notification code table).
 * The task ends 6 when every notification was answered 200, else 5.
 * Tasks live in ctx.db; on mount, tasks that were pending, processing or notifying when the
 * emulator stopped resume (unfinished items run again, unsent notifications are sent).
 */

export interface FmgrOptions {
  notifyRetry?: NotifyRetry;
  /** Minimum time each state of a task or item lasts, so pollers observe it. Default 20 ms. */
  stepDelayMs?: number;
}

export interface FmgrSubmitOptions {
  /** Plain (already decoded) notify URL, http or https. */
  notifyURL?: string;
  force?: boolean;
  separate?: boolean;
}

export interface FmgrService {
  /**
   * Validates and queues a task; returns its persistentId. Throws HttpError 400 (number
   * code style) on an unknown op, empty or malformed fops, or a bad notify URL.
   */
  submit(opName: string, fops: string, opts: FmgrSubmitOptions): string;
  /** The task object as the status query answers it, or undefined for an unknown id. */
  status(persistentId: string): FmgrStatusBody | undefined;
  /** Resolves when every task started so far has ended (processing and notifications). */
  idle(): Promise<void>;
}

export const DEFAULT_FMGR_STEP_DELAY_MS = 20;
const MAX_FORM_BYTES = 1024 * 1024;

export function mountFmgr(ctx: EmulatorContext, opts: FmgrOptions = {}): FmgrService {
  const store = new FmgrTaskStore(ctx.db);
  const retry = opts.notifyRetry ?? DEFAULT_NOTIFY_RETRY;
  const stepDelayMs = opts.stepDelayMs ?? DEFAULT_FMGR_STEP_DELAY_MS;
  const stop = new StopGroup();
  const running = new Set<Promise<void>>();
  const signer = { accessKey: ctx.config.accessKey, secretKey: ctx.config.secretKey };

  const save = (t: FmgrTaskRecord): boolean => {
    if (stop.stopped) return false;
    t.updatedAt = ctx.clock.now();
    store.save(t);
    return true;
  };

  const notify = async (t: FmgrTaskRecord, body: FmgrStatusBody, signal: AbortSignal): Promise<boolean> => {
    if (t.notifyUrl === null) return true;
    const payload = Buffer.from(urlsafeB64Encode(JSON.stringify(body)), 'utf8');
    return sendNotification(new URL(t.notifyUrl), payload, 'text/plain', signer, retry, signal);
  };

  /**
   * Sends one item's separate notification and records its outcome on the item. Never
   * rejects (it runs beside the task's processing): a store failure counts as not notified.
   */
  const notifyItem = async (t: FmgrTaskRecord, item: FmgrItemRecord, signal: AbortSignal): Promise<boolean> => {
    const others = t.items.filter((o) => o !== item);
    const code = others.some((o) => o.code === 0 || o.code === 1) ? 1 : t.items.some((o) => isFailed(o.code)) ? 2 : 3;
    const ok = await notify(t, taskStatusBody(t, [item], code, fmgrNotificationState(code)), signal);
    if (signal.aborted) return ok;
    item.code = item.code === 18 ? (ok ? 20 : 19) : ok ? 6 : 5;
    try {
      save(t);
    } catch (e) {
      process.stderr.write(
        `blocklift emulator: Fmgr task ${t.id}: could not record a notification: ${(e as Error).message}\n`,
      );
      return false;
    }
    return ok;
  };

  const runTask = async (t: FmgrTaskRecord, signal: AbortSignal): Promise<void> => {
    const notifying: Promise<boolean>[] = [];
    const hasNotify = t.notifyUrl !== null;
    if (t.code === 0) {
      if (!(await sleep(stepDelayMs, signal))) return;
      t.code = 1;
      if (!save(t)) return;
    }
    for (const item of t.items) {
      if (t.separate && hasNotify && (item.code === 4 || item.code === 18)) notifying.push(notifyItem(t, item, signal));
      if (item.code !== 0 && item.code !== 1) continue;
      item.code = 1;
      if (!save(t) || !(await sleep(stepDelayMs, signal))) return;
      try {
        const op = parseFop(t.op, item.fop);
        const r = await runFmgrOp(op, { ctx, force: t.force, signal });
        Object.assign(item, { code: 3, error: '', key: r.key, hash: r.hash, fsize: r.fsize, url: r.url });
      } catch (e) {
        if (signal.aborted) return;
        const message =
          e instanceof FmgrOpError || e instanceof FopsSyntaxError || e instanceof ObjectStoreError
            ? e.message
            : `internal error: ${(e as Error).message}`;
        Object.assign(item, { code: 2, error: message });
      }
      if (t.separate && hasNotify) item.code = item.code === 3 ? 4 : 18;
      if (!save(t)) return;
      if (t.separate && hasNotify) notifying.push(notifyItem(t, item, signal));
    }
    if (t.code === 1) {
      t.code = 3;
      if (!save(t)) return;
    }
    if (!hasNotify) return;
    if (t.code === 3) {
      if (!(await sleep(stepDelayMs, signal))) return;
      t.code = 4;
      if (!t.separate) for (const item of t.items) item.code = item.code === 3 ? 4 : item.code === 2 ? 18 : item.code;
      if (!save(t)) return;
    }
    let ok: boolean;
    if (t.separate) {
      ok = (await Promise.all(notifying)).every(Boolean) && t.items.every((i) => i.code === 6 || i.code === 20);
    } else {
      ok = await notify(t, taskStatusBody(t, t.items, 3, fmgrNotificationState(3)), signal);
      for (const item of t.items)
        item.code = item.code === 4 ? (ok ? 6 : 5) : item.code === 18 ? (ok ? 20 : 19) : item.code;
    }
    if (signal.aborted) return;
    t.code = ok ? 6 : 5;
    save(t);
  };

  const start = (t: FmgrTaskRecord) => {
    const p = stop
      .run((signal) => runTask(t, signal))
      .catch((e: unknown) => {
        // A store failure (disk full, database closed) must not crash the emulator; the task
        // stays in its last saved state and resumes on the next start.
        if (!stop.stopped)
          process.stderr.write(`blocklift emulator: Fmgr task ${t.id} stopped: ${(e as Error).message}\n`);
      });
    running.add(p);
    void p.finally(() => running.delete(p));
  };

  const service: FmgrService = {
    submit(opName, fops, sopts) {
      if (!(FMGR_OPS as readonly string[]).includes(opName)) {
        throw new HttpError(
          400,
          `unknown Fmgr operation "${opName.slice(0, 50)}": use one of ${FMGR_OPS.join(', ')}`,
          'number',
        );
      }
      const entries = fops.split(';').filter((s) => s.trim() !== '');
      if (entries.length === 0) throw new HttpError(400, 'fops is required: give at least one operation', 'number');
      for (const [i, entry] of entries.entries()) {
        try {
          parseFop(opName, entry);
        } catch (e) {
          if (e instanceof FopsSyntaxError) throw new HttpError(400, `fops entry ${i + 1}: ${e.message}`, 'number');
          throw e;
        }
      }
      let notifyUrl: string | null = null;
      if (sopts.notifyURL !== undefined && sopts.notifyURL !== '') {
        try {
          notifyUrl = parseNotifyUrl(sopts.notifyURL).href;
        } catch (e) {
          if (e instanceof NotifyUrlError) throw new HttpError(400, `notifyURL: ${e.message}`, 'number');
          throw e;
        }
      }
      const now = ctx.clock.now();
      const task: FmgrTaskRecord = {
        id: `fmgr-${randomBytes(16).toString('hex')}`,
        op: opName as FmgrOpName,
        notifyUrl,
        force: sopts.force === true,
        separate: sopts.separate === true,
        code: 0,
        items: entries.map((fop) => ({ fop, code: 0, error: '', hash: '', fsize: null, key: '', url: '' })),
        createdAt: now,
        updatedAt: now,
      };
      store.insert(task);
      start(task);
      return task.id;
    },
    status(id) {
      const t = store.get(id);
      return t === undefined ? undefined : taskStatusBody(t);
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };

  // Route errors are thrown as HttpError; the server turns them into the JSON reply.
  ctx.route('POST', '/fmgr/:op', (req, res, params) => submitRoute(ctx, service, req, res, params.op ?? ''));
  ctx.route('GET', '/fmgr/status', (_req, res, _params, query) => {
    const id = query.get('persistentId');
    if (!id) throw new HttpError(400, 'persistentId is required: GET /fmgr/status?persistentId=<id>', 'number');
    const body = service.status(id);
    if (body === undefined) throw new HttpError(404, `no Fmgr task has persistentId ${id.slice(0, 100)}`, 'number');
    sendJson(res, 200, body);
  });
  ctx.onClose(async () => {
    stop.stop();
    await Promise.all([...running]);
  });
  for (const t of store.unfinished()) start(t);
  return service;
}

async function submitRoute(
  ctx: EmulatorContext,
  service: FmgrService,
  req: IncomingMessage,
  res: ServerResponse,
  opName: string,
): Promise<void> {
  const body = await readBody(req, { limit: MAX_FORM_BYTES });
  checkManagementAuth(req, body, ctx.config, 'number');
  const form = parseForm(body);
  const flag = (name: string): boolean => {
    const v = form.get(name);
    if (v === null || v === '' || v === '0') return false;
    if (v === '1') return true;
    throw new HttpError(400, `${name} must be 0 or 1`, 'number');
  };
  let notifyURL: string | undefined;
  const rawNotify = form.get('notifyURL');
  if (rawNotify !== null && rawNotify !== '') {
    try {
      notifyURL = urlsafeB64DecodeText(rawNotify);
    } catch (e) {
      if (e instanceof Base64Error) throw new HttpError(400, 'notifyURL must be URL-safe Base64', 'number');
      throw e;
    }
  }
  const id = service.submit(opName, form.get('fops') ?? '', {
    notifyURL,
    force: flag('force'),
    separate: flag('separate'),
  });
  sendJson(res, 200, { persistentId: id });
}

function isFailed(code: number): boolean {
  return code === 2 || code === 18 || code === 19 || code === 20;
}
