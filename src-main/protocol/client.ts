import type http from 'node:http';
import { crc32 } from '../base/crc32';
import { urlsafeB64Encode } from './base64';
import { buildFmgrBody, type FmgrOp, type FmgrOpName } from './fops';
import { signManagementToken } from './tokens';
import { multipartParts } from './multipart';
import { httpCall, type HttpCall, type HttpReply } from './http';
import { RouteTable, SOCKETS_PER_ROUTE, type ProxyChoice, type Route } from './proxy';
import { Fields, badReply, jsonObjectReply } from './reply';
import { ServiceError, errorFromReply, type Endpoint } from './errors';
import {
  type BlockContext,
  type FmgrItem,
  type FmgrTaskStatus,
  type MkfileResult,
  type StoredObjectInfo,
  type VcaJob,
  type VcaResultGroup,
  type VcaResultType,
} from './types';

const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

function baseUrl(value: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new TypeError(`${what} "${value}" is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`${what} must be http:// or https://`);
  return u;
}

/** Joins a base URL (which may have a path) and a path that starts with '/'. */
function join(base: URL, pathAndQuery: string): URL {
  const prefix = base.pathname.replace(/\/+$/, '');
  return new URL(`${base.protocol}//${base.host}${prefix}${pathAndQuery}`);
}

interface CallOpts {
  headers?: Record<string, string | number>;
  body?: HttpCall['body'];
  signal?: AbortSignal;
  maxReplyBytes?: number;
}

/** What every client takes besides its URL. */
export interface ClientOptions {
  timeoutMs?: number;
  /** One agent for every request (no proxy is applied then); the caller closes it. */
  agent?: http.Agent;
  /** How requests reach the service (proxy.ts); default direct. Ignored when `agent` is given. */
  proxy?: ProxyChoice;
  userAgent?: string;
}

abstract class BaseClient {
  private readonly agent: http.Agent | undefined;
  private readonly routes: RouteTable;
  protected readonly idleTimeoutMs: number;
  protected readonly userAgent: string;

  /** `socketsPerRoute`: the upload client's is above the engine's widest window (proxy.ts); default RouteTable's 32. */
  constructor(opts: ClientOptions, socketsPerRoute?: number) {
    this.agent = opts.agent;
    this.routes = new RouteTable(opts.proxy, socketsPerRoute);
    this.idleTimeoutMs = opts.timeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.userAgent = opts.userAgent ?? 'Blocklift/0.1';
  }

  protected call(endpoint: Endpoint, method: HttpCall['method'], url: URL, o: CallOpts): Promise<HttpReply> {
    let route: Route;
    try {
      route = this.agent ? { agent: this.agent } : this.routes.route(url);
    } catch (e) {
      // A proxy setting that cannot be used (not an http:// URL) fails the call, as a network error names it.
      return Promise.reject(new ServiceError({ kind: 'network', endpoint, message: (e as Error).message, cause: e }));
    }
    return httpCall({
      endpoint,
      method,
      url,
      headers: { 'User-Agent': this.userAgent, ...o.headers },
      body: o.body,
      idleTimeoutMs: this.idleTimeoutMs,
      // Replies other than downloads are small: twice the idle timeout is plenty.
      replyDeadlineMs: endpoint === 'download' ? undefined : 2 * this.idleTimeoutMs,
      signal: o.signal,
      maxReplyBytes: o.maxReplyBytes,
      ...route,
    });
  }

  /** Closes idle keep-alive sockets of the agents this client created. */
  close(): void {
    this.routes.close();
  }
}

export interface ChunkArgs {
  token: string;
  batch: string;
  /** The object key, sent URL-safe Base64 in the Key header. */
  key?: string;
  chunk: Uint8Array;
  /** CRC-32 of the block before this chunk, so a reply with the block-so-far CRC is accepted too. */
  crcBefore?: number;
  signal?: AbortSignal;
}

export interface MkfileArgs {
  token: string;
  fileSize: number;
  batch: string;
  /** Last ctx of every block, in block order. */
  ctxs: readonly string[];
  key?: string;
  mimeType?: string;
  deadlineDays?: number;
  /** Custom variables; names with or without the `x:` prefix. */
  vars?: Record<string, string>;
  /** The token's policy has callbackUrl: the reply is the callback's, hash and key may be absent (null). */
  callback?: boolean;
  signal?: AbortSignal;
}

export interface FormUploadArgs {
  token: string;
  /** The whole file; the form upload is for small files (the SDKs use it up to one 4 MiB block). */
  data: Uint8Array;
  /** The object key (the policy scope's key wins over it). */
  key?: string;
  /** The file name sent with the file part (becomes `$(fname)`). */
  fileName?: string;
  mimeType?: string;
  deadlineDays?: number;
  /** Custom variables; names with or without the `x:` prefix. */
  vars?: Record<string, string>;
  /** The token's policy has callbackUrl: the reply is the callback's, hash and key may be absent (null). */
  callback?: boolean;
  signal?: AbortSignal;
}

/** The chunked-upload endpoints: mkblk, bput, mkfile, and the form upload. */
export class UploadClient extends BaseClient {
  private readonly base: URL;

  constructor(opts: ClientOptions & { uploadUrl: string }) {
    const base = baseUrl(opts.uploadUrl, 'upload URL');
    super(opts, SOCKETS_PER_ROUTE);
    this.base = base;
  }

  mkblk(a: ChunkArgs & { blockSize: number; blockOrder: number }): Promise<BlockContext> {
    if (!Number.isSafeInteger(a.blockSize) || a.blockSize <= 0)
      throw new RangeError(`blockSize must be a positive whole number, not ${a.blockSize}`);
    if (!Number.isSafeInteger(a.blockOrder) || a.blockOrder < 0)
      throw new RangeError(`blockOrder must be 0 or more, not ${a.blockOrder}`);
    return this.chunk('mkblk', `/mkblk/${a.blockSize}/${a.blockOrder}`, a);
  }

  bput(a: ChunkArgs & { ctx: string; offset: number }): Promise<BlockContext> {
    if (!Number.isSafeInteger(a.offset) || a.offset < 0)
      throw new RangeError(`offset must be 0 or more, not ${a.offset}`);
    return this.chunk('bput', `/bput/${encodeURIComponent(a.ctx)}/${a.offset}`, a);
  }

  private async chunk(endpoint: 'mkblk' | 'bput', path: string, a: ChunkArgs): Promise<BlockContext> {
    const reply = await this.call(endpoint, 'POST', join(this.base, path), {
      headers: this.uploadHeaders(a, 'application/octet-stream'),
      body: a.chunk,
      signal: a.signal,
    });
    const f = new Fields(endpoint, reply, jsonObjectReply(endpoint, reply));
    const ctx: BlockContext = {
      ctx: f.string('ctx'),
      checksum: f.optString('checksum') ?? '',
      crc32: f.number('crc32'),
      offset: f.number('offset'),
      host: f.optString('host'),
    };
    if (ctx.ctx === '') throw badReply(endpoint, reply, 'reply has an empty ctx');
    const bodyCrc = crc32(a.chunk);
    if (ctx.crc32 !== bodyCrc && (a.crcBefore === undefined || ctx.crc32 !== crc32(a.chunk, a.crcBefore))) {
      throw badReply(
        endpoint,
        reply,
        `crc32 of the reply (${ctx.crc32}) does not match the chunk sent (${bodyCrc}): the chunk was damaged on the way`,
        'crc32-mismatch',
      );
    }
    return ctx;
  }

  mkfile(a: MkfileArgs & { callback?: false }): Promise<MkfileResult>;
  mkfile(a: MkfileArgs): Promise<MkfileResult<string | null>>;
  async mkfile(a: MkfileArgs): Promise<MkfileResult<string | null>> {
    if (!Number.isSafeInteger(a.fileSize) || a.fileSize < 0)
      throw new RangeError(`fileSize must be 0 or more, not ${a.fileSize}`);
    let path = `/mkfile/${a.fileSize}`;
    for (const [rawName, value] of Object.entries(a.vars ?? {})) {
      const name = rawName.startsWith('x:') ? rawName : `x:${rawName}`;
      if (!/^x:[A-Za-z0-9_-]+$/.test(name))
        throw new RangeError(`custom variable name "${rawName}" may use only letters, digits, _ and -`);
      path += `/${name}/${urlsafeB64Encode(value)}`;
    }
    const headers = this.uploadHeaders(a, 'text/plain;charset=UTF-8');
    if (a.mimeType !== undefined) headers.MimeType = a.mimeType;
    if (a.deadlineDays !== undefined) {
      if (!Number.isInteger(a.deadlineDays) || a.deadlineDays < 0)
        throw new RangeError(`Deadline must be a whole number of days, 0 or more, not ${a.deadlineDays}`);
      headers.Deadline = a.deadlineDays;
    }
    const reply = await this.call('mkfile', 'POST', join(this.base, path), {
      headers,
      body: a.ctxs.join(','),
      signal: a.signal,
    });
    const obj = jsonObjectReply('mkfile', reply);
    const f = new Fields('mkfile', reply, obj);
    if (a.callback) return { hash: f.optString('hash') ?? null, key: f.optString('key') ?? null, body: obj };
    return { hash: f.string('hash'), key: f.string('key'), body: obj };
  }

  /**
   * `POST /file/upload`: one multipart/form-data request with the token, the optional key,
   * mimeType, deadline and variables, and the file. Answers like mkfile.
   */
  formUpload(a: FormUploadArgs & { callback?: false }): Promise<MkfileResult>;
  formUpload(a: FormUploadArgs): Promise<MkfileResult<string | null>>;
  async formUpload(a: FormUploadArgs): Promise<MkfileResult<string | null>> {
    const fields: Array<[string, string]> = [['token', a.token]];
    if (a.key !== undefined) fields.push(['key', a.key]);
    if (a.mimeType !== undefined) fields.push(['mimeType', a.mimeType]);
    if (a.deadlineDays !== undefined) {
      if (!Number.isInteger(a.deadlineDays) || a.deadlineDays < 0)
        throw new RangeError(`deadline must be a whole number of days, 0 or more, not ${a.deadlineDays}`);
      fields.push(['deadline', String(a.deadlineDays)]);
    }
    for (const [rawName, value] of Object.entries(a.vars ?? {})) {
      const name = rawName.startsWith('x:') ? rawName : `x:${rawName}`;
      if (!/^x:[A-Za-z0-9_-]+$/.test(name))
        throw new RangeError(`custom variable name "${rawName}" may use only letters, digits, _ and -`);
      fields.push([name, value]);
    }
    const { contentType, parts } = multipartParts(fields, a.fileName ?? a.key ?? 'file', a.data);
    const reply = await this.call('form-upload', 'POST', join(this.base, '/file/upload'), {
      headers: { 'Content-Type': contentType },
      body: parts,
      signal: a.signal,
    });
    const obj = jsonObjectReply('form-upload', reply);
    const f = new Fields('form-upload', reply, obj);
    if (a.callback) return { hash: f.optString('hash') ?? null, key: f.optString('key') ?? null, body: obj };
    return { hash: f.string('hash'), key: f.string('key'), body: obj };
  }

  private uploadHeaders(
    a: { token: string; batch: string; key?: string },
    contentType: string,
  ): Record<string, string | number> {
    const h: Record<string, string | number> = {
      Authorization: a.token,
      'Content-Type': contentType,
      UploadBatch: a.batch,
    };
    if (a.key !== undefined) h.Key = urlsafeB64Encode(a.key);
    return h;
  }
}

/** The management endpoints: Fmgr submissions and status, VCA create and search, downloads. */
export class MgrClient extends BaseClient {
  private readonly base: URL;
  private readonly accessKey: string | undefined;
  private readonly secretKey: string | undefined;

  constructor(opts: ClientOptions & { mgrUrl: string; accessKey?: string; secretKey?: string }) {
    const base = baseUrl(opts.mgrUrl, 'management URL');
    super(opts);
    this.base = base;
    this.accessKey = opts.accessKey;
    this.secretKey = opts.secretKey;
  }

  private signedForm(endpoint: Endpoint, path: string, body: string, signal?: AbortSignal): Promise<HttpReply> {
    if (!this.accessKey || !this.secretKey) {
      throw new ServiceError({
        kind: 'service',
        endpoint,
        code: 'no-credentials',
        message: 'this call needs an access key and secret key (management token)',
      });
    }
    const url = join(this.base, path);
    const token = signManagementToken(this.accessKey, this.secretKey, url.pathname + url.search, body);
    return this.call(endpoint, 'POST', url, {
      headers: { Authorization: token, 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
      signal,
    });
  }

  async fmgrSubmit(
    op: FmgrOpName,
    ops: readonly FmgrOp[],
    opts: { notifyURL?: string; force?: 0 | 1; separate?: 0 | 1 } = {},
    signal?: AbortSignal,
  ): Promise<{ persistentId: string }> {
    const wrong = ops.find((o) => o.op !== op);
    if (wrong) throw new TypeError(`a /fmgr/${op} submission cannot carry a ${wrong.op} operation`);
    const reply = await this.signedForm('fmgr-submit', `/fmgr/${op}`, buildFmgrBody(ops, opts), signal);
    const f = new Fields('fmgr-submit', reply, jsonObjectReply('fmgr-submit', reply));
    return { persistentId: f.string('persistentId') };
  }

  async fmgrStatus(persistentId: string, signal?: AbortSignal): Promise<FmgrTaskStatus> {
    const reply = await this.call(
      'fmgr-status',
      'GET',
      join(this.base, `/fmgr/status?persistentId=${encodeURIComponent(persistentId)}`),
      { signal },
    );
    return parseFmgrStatus(new Fields('fmgr-status', reply, jsonObjectReply('fmgr-status', reply)));
  }

  async vcaCreate(
    a: { bucket: string; source: string; notifyUrl?: string },
    signal?: AbortSignal,
  ): Promise<{ jobId: string }> {
    const params = new URLSearchParams({ bucket: a.bucket, source: urlsafeB64Encode(a.source) });
    if (a.notifyUrl !== undefined) params.set('notifyUrl', urlsafeB64Encode(a.notifyUrl));
    const reply = await this.signedForm('vca-create', '/v1/vca', params.toString(), signal);
    const f = new Fields('vca-create', reply, jsonObjectReply('vca-create', reply));
    return { jobId: f.string('jobId') };
  }

  async vcaSearch(jobId: string, signal?: AbortSignal): Promise<VcaJob> {
    const reply = await this.call(
      'vca-search',
      'GET',
      join(this.base, `/v1/vca/search?jobId=${encodeURIComponent(jobId)}`),
      { signal },
    );
    return parseVcaJob(new Fields('vca-search', reply, jsonObjectReply('vca-search', reply)));
  }

  /**
   * `GET /stat/<b64 "bucket:key">` with a management token (signing string "/stat/<entry>\n"):
   * what the service holds under a key, or null when it holds nothing there (404, or the
   * 612 "no such file" some deployments answer). The official SDKs (Go, Java, Python, PHP,
   * Node) call it this way; docs/protocol.md has the reply. Throws ServiceError otherwise
   * (no-credentials without AK/SK, network, 401…).
   */
  async stat(bucket: string, key: string, signal?: AbortSignal): Promise<StoredObjectInfo | null> {
    if (!this.accessKey || !this.secretKey) {
      throw new ServiceError({
        kind: 'service',
        endpoint: 'stat',
        code: 'no-credentials',
        message: 'stat needs an access key and secret key (management token)',
      });
    }
    const url = join(this.base, `/stat/${urlsafeB64Encode(`${bucket}:${key}`)}`);
    const token = signManagementToken(this.accessKey, this.secretKey, url.pathname, '');
    const reply = await this.call('stat', 'GET', url, { headers: { Authorization: token }, signal });
    if (reply.status === 404 || reply.status === 612) return null;
    const f = new Fields('stat', reply, jsonObjectReply('stat', reply));
    return {
      hash: f.string('hash'),
      fsize: f.number('fsize'),
      mimeType: f.optString('mimeType'),
      putTime: f.optNumber('putTime'),
    };
  }

  /** GET of a download URL; any status resolves (the caller decides), bodies up to 1 GiB. */
  async download(
    url: string,
    opts: { range?: [number, number]; signal?: AbortSignal } = {},
  ): Promise<{ status: number; body: Buffer; headers: http.IncomingHttpHeaders }> {
    const headers: Record<string, string> = {};
    if (opts.range) headers.Range = `bytes=${opts.range[0]}-${opts.range[1]}`;
    const reply = await this.call('download', 'GET', baseUrl(url, 'download URL'), {
      headers,
      signal: opts.signal,
      maxReplyBytes: 1024 ** 3,
    });
    return { status: reply.status, body: reply.body, headers: reply.headers };
  }
}

/** Parses a task status object (the status reply, and the body of a notification). */
export function parseFmgrStatus(f: Fields): FmgrTaskStatus {
  const items: FmgrItem[] = f.array('items').map((raw, i) => {
    const it = f.child(raw, `items[${i}]`);
    return {
      cmd: it.optString('cmd') ?? '',
      code: it.number('code'),
      desc: it.optString('desc') ?? '',
      error: it.optString('error'),
      hash: it.optString('hash'),
      fsize: it.optNumber('fsize'),
      key: it.optString('key'),
      url: it.optString('url'),
      decompresslist: it.optString('decompresslist'),
    };
  });
  const separate = f.obj.separate;
  return {
    id: f.string('id'),
    code: f.number('code'),
    desc: f.optString('desc') ?? '',
    separate: typeof separate === 'string' || typeof separate === 'number' ? separate : undefined,
    items,
  };
}

/**
 * Parses a VCA job (the search reply; a notification has the same fields but notifyResult).
 * A result type outside the six documented ones is kept as sent (VcaResultType); a job
 * without `results` (still analysing, or failed) has none ([]).
 */
export function parseVcaJob(f: Fields): VcaJob {
  const rawResults = f.obj.results;
  const results: VcaResultGroup<VcaResultType>[] = (
    rawResults === undefined || rawResults === null ? [] : f.array('results')
  ).map((raw, i) => {
    const g = f.child(raw, `results[${i}]`);
    const type = g.string('type');
    if (type.trim() === '')
      throw new ServiceError({ kind: 'bad-reply', endpoint: 'vca-search', message: `results[${i}] has an empty type` });
    return {
      type,
      result: g.array('result').map((l, j) => {
        const label = g.child(l, `results[${i}].result[${j}]`);
        return { attribute: label.string('attribute'), confidence: label.number('confidence') };
      }),
    };
  });
  return {
    jobId: f.string('jobId'),
    code: f.number('code'),
    desc: f.optString('desc') ?? '',
    notifyResult: f.optNumber('notifyResult') ?? 0,
    results,
  };
}

export { ServiceError, errorFromReply };
