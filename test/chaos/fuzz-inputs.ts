import { urlsafeB64Encode } from '../../src-main/protocol/base64';
import { buildFmgrBody } from '../../src-main/protocol/fops';
import { signManagementToken, signUploadToken } from '../../src-main/protocol/tokens';
import type { FmgrOp } from '../../src-main/shared/fmgr-ops';
import type { ChaosContext } from './context';
import type { EmulatorChild } from './emulator-child';

/**
 * The fuzz's inputs: a valid request for a route (signed tokens, real ctxs and ids harvested
 * from earlier replies into `Pools`), and `mutate`, which damages one in 0-3 ways. Keys and
 * path segments carry MARK so a file named after one would be found.
 */
export const MARK = 'FUZZMARK';

export interface Req {
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export type Rnd = () => number;
const pick = <T>(r: Rnd, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const JUNK_SEGMENTS = [
  '..',
  '%2e%2e',
  '..%2f..%2f' + MARK,
  '%00',
  '%',
  '%zz',
  '-1',
  '0',
  '1e3',
  '4194305',
  '99999999999999999999',
  'NaN',
  '%F0%9F%92%A5',
  '%C3%28',
  'x'.repeat(5000),
  '',
  '/',
  '//',
  '?a=1',
  '#frag',
];
const JUNK_BODIES = [
  '{',
  '[]',
  'null',
  '{"a":' + '['.repeat(2000),
  '\u0000\u0001',
  'a=b&fops=' + '%'.repeat(10),
  'ctx1,ctx2,',
];
const JUNK_KEYS = [
  `../../${MARK}`,
  `/abs/${MARK}`,
  `a\u0000b`,
  'k'.repeat(1500),
  'dir/',
  '/',
  '//',
  'é/ü',
  `..\\${MARK}`,
];

export interface Pools {
  ctxs: Array<{ ctx: string; offset: number; batch: string }>;
  persistentIds: string[];
  jobIds: string[];
}

interface Gen {
  r: Rnd;
  ctx: ChaosContext;
  emu: EmulatorChild;
  pools: Pools;
}

const NO_BODY = Buffer.alloc(0);

function upHeaders(g: Gen, ct: string, batch = `batch-${Math.floor(g.r() * 50)}`): Record<string, string> {
  const scope = pick(g.r, ['local', 'local', 'nobucket', `local:${pick(g.r, JUNK_KEYS)}`]);
  const token = signUploadToken(g.ctx.accessKey, g.ctx.secretKey, { scope, deadline: Date.now() + 3_600_000 });
  return { Authorization: `UpToken ${token}`, UploadBatch: batch, 'Content-Type': ct };
}

function mgmtHeaders(g: Gen, p: string, body: string): Record<string, string> {
  return {
    Authorization: signManagementToken(g.ctx.accessKey, g.ctx.secretKey, p, body),
    'Content-Type': 'application/x-www-form-urlencoded',
  };
}

const chunk = (g: Gen) => Buffer.alloc(1 + Math.floor(g.r() * 16_384), 0x61 + Math.floor(g.r() * 26));
const someCtx = (g: Gen) => (g.pools.ctxs.length ? pick(g.r, g.pools.ctxs) : { ctx: 'made-up', offset: 1, batch: 'b' });

const mkblk = (g: Gen): Req => ({
  route: 'mkblk',
  method: 'POST',
  path: `/mkblk/4194304/${Math.floor(g.r() * 3)}`,
  headers: upHeaders(g, 'application/octet-stream'),
  body: chunk(g),
});

const bput = (g: Gen): Req => {
  const c = someCtx(g);
  const headers = upHeaders(g, 'application/octet-stream', c.batch);
  return { route: 'bput', method: 'POST', path: `/bput/${c.ctx}/${c.offset}`, headers, body: chunk(g) };
};

const mkfile = (g: Gen): Req => {
  // Half the time a consistent one-block file (it may be stored), else a mixed list.
  const one = someCtx(g);
  const ctxs = g.r() < 0.5 ? [one.ctx] : [someCtx(g).ctx, someCtx(g).ctx];
  const key = urlsafeB64Encode(pick(g.r, [...JUNK_KEYS, `fuzz/${Math.floor(g.r() * 100)}`]));
  const headers = upHeaders(g, 'text/plain', one.batch);
  return {
    route: 'mkfile',
    method: 'POST',
    path: `/mkfile/${one.offset}/key/${key}`,
    headers,
    body: Buffer.from(ctxs.join(',')),
  };
};

const fmgr = (g: Gen): Req => {
  const key = pick(g.r, [`fuzz/${Math.floor(g.r() * 100)}`, ...JUNK_KEYS]);
  // fetch only from the emulator itself: the fuzz stays on loopback.
  const op: FmgrOp = pick(g.r, [
    { op: 'delete', bucket: 'local', key },
    { op: 'copy', srcBucket: 'local', srcKey: key, bucket: 'local', key: `${key}-copy` },
    { op: 'setdeadline', bucket: 'local', prefix: 'fuzz/', deadline: 1 + Math.floor(g.r() * 30) },
    { op: 'fetch', fetchURL: g.emu.objectUrl('local', key), bucket: 'local', key: `${key}-fetched` },
  ] as FmgrOp[]);
  const p = `/fmgr/${op.op}`;
  let body: string;
  try {
    body = buildFmgrBody([op]);
  } catch {
    body = 'fops=';
  }
  return { route: 'fmgr', method: 'POST', path: p, headers: mgmtHeaders(g, p, body), body: Buffer.from(body) };
};

const fmgrStatus = (g: Gen): Req => {
  const ids = g.pools.persistentIds;
  const id = ids.length && g.r() < 0.7 ? pick(g.r, ids) : pick(g.r, JUNK_SEGMENTS);
  const path = `/fmgr/status?persistentId=${encodeURIComponent(id)}`;
  return { route: 'fmgr-status', method: 'GET', path, headers: {}, body: NO_BODY };
};

const vca = (g: Gen): Req => {
  const source = urlsafeB64Encode(g.emu.objectUrl('local', 'fuzz/1.mp4'));
  const body = new URLSearchParams({ bucket: 'local', source }).toString();
  return {
    route: 'vca',
    method: 'POST',
    path: '/v1/vca',
    headers: mgmtHeaders(g, '/v1/vca', body),
    body: Buffer.from(body),
  };
};

const vcaSearch = (g: Gen): Req => {
  const id = g.pools.jobIds.length && g.r() < 0.7 ? pick(g.r, g.pools.jobIds) : pick(g.r, JUNK_SEGMENTS);
  return {
    route: 'vca-search',
    method: 'GET',
    path: `/v1/vca/search?jobId=${encodeURIComponent(id)}`,
    headers: {},
    body: NO_BODY,
  };
};

const RANGES = [
  undefined,
  'bytes=0-0',
  'bytes=5-1',
  'bytes=-3',
  'bytes=0-',
  'bytes=1-2,4-5',
  'items=0-1',
  'bytes=99999999-',
];

const download = (g: Gen): Req => {
  const url = new URL(g.emu.objectUrl('local', pick(g.r, [`fuzz/${Math.floor(g.r() * 100)}`, ...JUNK_KEYS])));
  const range = pick(g.r, RANGES);
  const method = pick(g.r, ['GET', 'HEAD']);
  return { route: 'download', method, path: url.pathname, headers: range ? { Range: range } : {}, body: NO_BODY };
};

const admin = (g: Gen): Req => {
  // The real token only on routes that change nothing the fuzz relies on (no clock, no faults).
  const p = pick(g.r, ['/admin/state', '/admin/faults', '/admin/clock', '/admin/sweep', '/admin/x']);
  const real = p === '/admin/state' || p === '/admin/sweep';
  const tok = real ? 'chaos-admin' : pick(g.r, ['wrong', '', 'chaos-admiN', 'chaos-admin2']);
  return {
    route: 'admin',
    method: p === '/admin/sweep' ? 'POST' : pick(g.r, ['GET', 'POST']),
    path: p,
    headers: { Authorization: `Bearer ${tok}` },
    body: Buffer.from(pick(g.r, ['', '{"advanceMs": 1e12}', '{"errors":[{"rate":1}]}'])),
  };
};

const other = (g: Gen): Req => ({
  route: 'other',
  method: pick(g.r, ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']),
  path: pick(g.r, ['/', '/mkblk', '/bput/x', '/mkfile', '/fmgr', '/v1/vca/x', '/dl', '/dl/local', `/${MARK}`]),
  headers: { Origin: 'http://evil.example' },
  body: NO_BODY,
});

/** Generators weighted by how much surface a route has. */
const GENERATORS = [mkblk, mkblk, bput, bput, mkfile, mkfile, fmgr, fmgrStatus, vca, vcaSearch, download, admin, other];

/** A valid (or nearly) request for a route drawn at random. */
export function baseRequest(r: Rnd, ctx: ChaosContext, emu: EmulatorChild, pools: Pools): Req {
  return pick(r, GENERATORS)({ r, ctx, emu, pools });
}

/** Damages a request in 0-3 ways: a path segment, a header, the token, the type, the body, the method. */
export function mutate(r: Rnd, q: Req): Req {
  const m = { ...q, headers: { ...q.headers } };
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    switch (Math.floor(r() * 8)) {
      case 0: {
        const segs = m.path.split('/');
        segs[1 + Math.floor(r() * (segs.length - 1))] = pick(r, JUNK_SEGMENTS);
        m.path = segs.join('/');
        break;
      }
      case 1: {
        const k = Object.keys(m.headers);
        if (k.length) delete m.headers[pick(r, k)];
        break;
      }
      case 2:
        if (m.headers.Authorization) {
          const a = m.headers.Authorization;
          const at = Math.floor(r() * a.length);
          m.headers.Authorization = pick(r, [
            a.slice(0, at),
            `${a.slice(0, at)}X${a.slice(at + 1)}`,
            'UpToken ',
            'Basic Zm9vOmJhcg==',
            `${a}:extra`,
          ]);
        }
        break;
      case 3:
        m.headers['Content-Type'] = pick(r, [
          'text/html',
          'application/json',
          '',
          'multipart/form-data; boundary=x',
          'application/octet-stream; charset=utf-8',
        ]);
        break;
      case 4:
        m.body = pick(r, [
          m.body.subarray(0, Math.floor(r() * m.body.length)),
          Buffer.from(pick(r, JUNK_BODIES)),
          Buffer.alloc(0),
        ]);
        break;
      case 5:
        m.method = pick(r, ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS']);
        break;
      case 6:
        // (A Transfer-Encoding the parser cannot read is a raw input: see RAW.)
        if (r() < 0.1) m.headers['Transfer-Encoding'] = 'chunked';
        else
          m.headers[pick(r, ['Expect', 'Range', 'UploadBatch', 'Key', 'Origin'])] = pick(r, [
            '100-continue',
            'weird',
            'bytes=0-1',
            '',
            '../' + MARK,
            'chunked',
          ]);
        break;
      default:
        m.path += pick(r, ['?', '?returnBody=$(key)', '/extra', '%', '?persistentId=']);
    }
  }
  return m;
}
