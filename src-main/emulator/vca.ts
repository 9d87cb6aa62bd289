import { randomBytes } from 'node:crypto';
import { urlsafeB64DecodeText } from '../protocol/base64';
import { VCA_TYPES, type VcaType } from '../protocol/types';
import { checkManagementAuth } from './auth';
import type { EmulatorContext } from './contracts';
import { HttpError, parseForm, readBody, sendJson } from './http-util';
import { DEFAULT_NOTIFY_RETRY, parseNotifyUrl, sendNotification, sleep, type NotifyRetry } from './notify';
import { VcaLabels } from './vca-labels';
import { checkVcaSource } from './vca-source';
import { StopGroup } from './stop-group';
import { VcaJobStore, vcaJobBody, type VcaJobRecord } from './vca-store';

/**
 * The emulator's video content analysis: `POST /v1/vca` (management token, form body
 * `bucket=<name>&source=<b64 url>[&notifyUrl=<b64 url>][&type=<t1,t2…>]`, answer
 * `{jobId}`) and `GET /v1/vca/search?jobId=` (no auth; answer the job object).
 *
 * Errors are `{code: "<status>", message}` with the interface document's exact messages,
 * checked in this order: the management token (401), then
 *   401 Bucket Is Null · 401 Source Is Null · 401 Source Invalid (not URL-safe Base64, or not
 *   an absolute URL) · 401 NotifyUrl Invalid (not URL-safe Base64, or not an http(s) URL) ·
 *   401 Type Invalid,Type Is Not Supported · 404 Bucket Not Found ·
 *   401 Smart Media Service Not Enabled (buckets listed in smartMediaDisabledBuckets);
 * search: 400 without a jobId, 404 JobId Not Found for an unknown one.
 *
 * A job stays code 1 for `analysisDelayMs`, then the emulator checks that the source can be
 * fetched (vca-source.ts): if not, code 2 with the reason in desc; if so, the label file
 * decides (vca-labels.ts: code 3 with results, or code 2 with the entry's error).
 * With a notifyUrl, notifyResult goes 1 (notifying) → 3 (the receiver answered 200) or 2
 * (every retry failed); the notification is a POST of JSON {jobId, code, desc, results},
 * Content-Type application/json, signed like every notification (notify.ts).
 */

export interface VcaOptions {
  /** The `--vca-labels` file (format in vca-labels.ts); without it every job gets the default labels. */
  labelsFile?: string;
  /** How long a job stays "analysing". Default 500 ms. */
  analysisDelayMs?: number;
  notifyRetry?: NotifyRetry;
  /** Buckets that answer 401 Smart Media Service Not Enabled. */
  smartMediaDisabledBuckets?: readonly string[];
}

export const DEFAULT_VCA_ANALYSIS_DELAY_MS = 500;
const MAX_FORM_BYTES = 64 * 1024;

/** Mounts the two VCA routes. Throws VcaLabelsError at once when the label file is unusable. */
export function mountVca(ctx: EmulatorContext, opts: VcaOptions = {}): void {
  const env: VcaEnv = {
    ctx,
    store: new VcaJobStore(ctx.db),
    labels: opts.labelsFile === undefined ? VcaLabels.empty() : VcaLabels.fromFile(opts.labelsFile),
    analysisDelayMs: opts.analysisDelayMs ?? DEFAULT_VCA_ANALYSIS_DELAY_MS,
    retry: opts.notifyRetry ?? DEFAULT_NOTIFY_RETRY,
    work: new StopGroup(ctx.logger),
  };
  const disabled = new Set(opts.smartMediaDisabledBuckets ?? []);
  const start = (j: VcaJobRecord) => env.work.spawn(`VCA job ${j.jobId}`, (signal) => runJob(env, j, signal));

  // Route errors are thrown as HttpError; the server turns them into the JSON reply.
  ctx.route('POST', '/v1/vca', async (req, res) => {
    const body = await readBody(req, { limit: MAX_FORM_BYTES });
    checkManagementAuth(req, body, ctx.config, 'string');
    const job = newJob(ctx, disabled, parseForm(body));
    env.store.insert(job);
    start(job);
    sendJson(res, 200, { jobId: job.jobId });
  });
  ctx.route('GET', '/v1/vca/search', (_req, res, _params, query) => {
    const jobId = query.get('jobId');
    if (!jobId) throw new HttpError(400, 'jobId is required: GET /v1/vca/search?jobId=<id>');
    const job = env.store.get(jobId);
    if (!job) throw new HttpError(404, 'JobId Not Found');
    sendJson(res, 200, vcaJobBody(job));
  });
  ctx.onClose(async () => {
    env.work.stop();
    await env.work.idle();
  });
  for (const j of env.store.unfinished()) start(j);
}

interface VcaEnv {
  ctx: EmulatorContext;
  store: VcaJobStore;
  labels: VcaLabels;
  analysisDelayMs: number;
  retry: NotifyRetry;
  work: StopGroup;
}

/** Saves the job unless the service is stopping (then the job resumes from its last saved state). */
function save(env: VcaEnv, j: VcaJobRecord): boolean {
  if (env.work.stopped) return false;
  j.updatedAt = env.ctx.clock.now();
  env.store.save(j);
  return true;
}

async function runJob(env: VcaEnv, j: VcaJobRecord, signal: AbortSignal): Promise<void> {
  if (j.code === 1) {
    if (!(await sleep(env.analysisDelayMs, signal))) return;
    const check = await checkVcaSource(env.ctx, j.source, signal);
    if (signal.aborted) return;
    const outcome = check.ok
      ? env.labels.analyse(j.source, j.types ?? undefined)
      : { kind: 'error' as const, message: check.reason };
    if (outcome.kind === 'results') Object.assign(j, { code: 3, desc: '', results: outcome.results });
    else Object.assign(j, { code: 2, desc: outcome.message, results: [] });
    if (j.notifyUrl !== null) j.notifyResult = 1;
    if (!save(env, j)) return;
  }
  if (j.notifyUrl === null || j.notifyResult !== 1) return;
  const body = Buffer.from(
    JSON.stringify({ jobId: j.jobId, code: j.code, desc: j.desc, results: j.code === 3 ? j.results : [] }),
    'utf8',
  );
  const signer = { accessKey: env.ctx.config.accessKey, secretKey: env.ctx.config.secretKey };
  const ok = await sendNotification(new URL(j.notifyUrl), body, 'application/json', signer, env.retry, signal);
  if (signal.aborted) return;
  j.notifyResult = ok ? 3 : 2;
  save(env, j);
}

/** A new job from the create form, checked in the document's order (HttpError with its exact messages). */
function newJob(ctx: EmulatorContext, disabled: ReadonlySet<string>, form: URLSearchParams): VcaJobRecord {
  const bucket = form.get('bucket') ?? '';
  if (bucket === '') throw new HttpError(401, 'Bucket Is Null');
  const rawSource = form.get('source') ?? '';
  if (rawSource === '') throw new HttpError(401, 'Source Is Null');
  const source = decodeUrl(rawSource, false);
  if (source === undefined) throw new HttpError(401, 'Source Invalid');
  let notifyUrl: string | null = null;
  const rawNotify = form.get('notifyUrl');
  if (rawNotify !== null && rawNotify !== '') {
    notifyUrl = decodeUrl(rawNotify, true) ?? null;
    if (notifyUrl === null) throw new HttpError(401, 'NotifyUrl Invalid');
  }
  let types: VcaType[] | null = null;
  const rawType = form.get('type');
  if (rawType !== null && rawType !== '') {
    const asked = rawType.split(',').map((t) => t.trim());
    if (asked.some((t) => !(VCA_TYPES as readonly string[]).includes(t)))
      throw new HttpError(401, 'Type Invalid,Type Is Not Supported');
    types = [...new Set(asked as VcaType[])];
  }
  if (!ctx.objects.hasBucket(bucket)) throw new HttpError(404, 'Bucket Not Found');
  if (disabled.has(bucket)) throw new HttpError(401, 'Smart Media Service Not Enabled');
  const now = ctx.clock.now();
  return {
    jobId: `vca-${randomBytes(16).toString('hex')}`,
    bucket,
    source,
    notifyUrl,
    types,
    code: 1,
    desc: '',
    notifyResult: 0,
    results: [],
    createdAt: now,
    updatedAt: now,
  };
}

/** Decodes a URL-safe Base64 URL; undefined when it is not Base64 or not an absolute (http(s), when asked) URL. */
function decodeUrl(raw: string, httpOnly: boolean): string | undefined {
  let text: string;
  try {
    text = urlsafeB64DecodeText(raw);
  } catch {
    return undefined;
  }
  if (httpOnly) {
    try {
      return parseNotifyUrl(text).href;
    } catch {
      return undefined;
    }
  }
  try {
    new URL(text);
  } catch {
    return undefined;
  }
  return text;
}
