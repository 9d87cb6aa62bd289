import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Base64Error, urlsafeB64DecodeText } from '../protocol/base64';
import { FMGR_OPS, FopsSyntaxError, parseFop, type FmgrOpName } from '../protocol/fops';
import { checkManagementAuth } from './auth';
import type { EmulatorContext } from './contracts';
import { FmgrRunner } from './fmgr-runner';
import { FmgrTaskStore, taskStatusBody, type FmgrStatusBody, type FmgrTaskRecord } from './fmgr-store';
import { HttpError, parseForm, readBody, sendJson } from './http-util';
import { DEFAULT_NOTIFY_RETRY, NotifyUrlError, parseNotifyUrl, type NotifyRetry } from './notify';
import { StopGroup } from './stop-group';

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
  const work = new StopGroup(ctx.logger);
  const runner = new FmgrRunner(ctx, store, work, {
    retry: opts.notifyRetry ?? DEFAULT_NOTIFY_RETRY,
    stepDelayMs: opts.stepDelayMs ?? DEFAULT_FMGR_STEP_DELAY_MS,
  });
  const service: FmgrService = {
    submit(opName, fops, sopts) {
      const task = newTask(opName, fops, sopts, ctx.clock.now());
      store.insert(task);
      runner.start(task);
      return task.id;
    },
    status(id) {
      const t = store.get(id);
      return t === undefined ? undefined : taskStatusBody(t);
    },
    idle: () => work.idle(),
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
    work.stop();
    await work.idle();
  });
  for (const t of store.unfinished()) runner.start(t);
  return service;
}

/** A new pending task after checking the submission (HttpError 400, number code style). */
function newTask(opName: string, fops: string, sopts: FmgrSubmitOptions, now: number): FmgrTaskRecord {
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
  return {
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
