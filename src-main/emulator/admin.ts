import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OffsetClock } from './clock';
import { FaultConfigError, parseFaultConfig, type FaultInjector } from './faults';
import { HttpError, readBody, sendJson } from './http-util';
import type { UploadCounts } from './upload-counts';

/** What one purge sweep removed. */
export interface SweepResult {
  blocks: number;
  objects: number;
  merges: number;
}

export interface AdminTarget {
  token: string;
  faults: FaultInjector;
  clock: OffsetClock;
  sweepNow(): SweepResult;
  blockCount(): number;
  uploadCounts(): UploadCounts;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * The admin routes, for tests in other processes (not part of the service's interface):
 * only from loopback, only with `Authorization: Bearer <adminToken>`.
 * - GET  /admin/faults → {config, events}; POST /admin/faults with a FaultConfig JSON
 *   (faults.ts) replaces it (`{}` turns faults off) and restarts the PRNG from its seed;
 * - GET  /admin/clock → {nowMs, offsetMs}; POST /admin/clock {"advanceMs": n} moves it;
 * - POST /admin/sweep runs the purge sweep now → SweepResult;
 * - GET  /admin/state → {blocks} (unmerged blocks held);
 * - GET  /admin/counts → UploadCounts (what mkblk and bput took in since the start).
 */
export async function handleAdmin(
  target: AdminTarget,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  if (!LOOPBACK.has(req.socket.remoteAddress ?? ''))
    throw new HttpError(403, 'admin routes answer loopback clients only');
  const auth = req.headers.authorization ?? '';
  const given = Buffer.from(auth.replace(/^Bearer\s+/i, ''));
  const expected = Buffer.from(target.token);
  if (!/^Bearer\s+/i.test(auth) || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new HttpError(
      401,
      'admin routes need Authorization: Bearer <admin token> (printed when the emulator starts)',
    );
  }
  const route = `${req.method} ${path}`;
  switch (route) {
    case 'GET /admin/faults':
      return sendJson(res, 200, { config: target.faults.config, events: target.faults.events });
    case 'POST /admin/faults': {
      const raw = await jsonBody(req);
      try {
        target.faults.set(parseFaultConfig(raw));
      } catch (e) {
        if (e instanceof FaultConfigError) throw new HttpError(400, e.message);
        throw e;
      }
      return sendJson(res, 200, { config: target.faults.config });
    }
    case 'GET /admin/clock':
      return sendJson(res, 200, { nowMs: target.clock.now(), offsetMs: target.clock.offset });
    case 'POST /admin/clock': {
      const raw = await jsonBody(req);
      const advanceMs = (raw as { advanceMs?: unknown } | null)?.advanceMs;
      if (typeof advanceMs !== 'number' || !Number.isFinite(advanceMs))
        throw new HttpError(400, 'body must be {"advanceMs": <number>}');
      target.clock.advance(advanceMs);
      return sendJson(res, 200, { nowMs: target.clock.now(), offsetMs: target.clock.offset });
    }
    case 'POST /admin/sweep':
      return sendJson(res, 200, target.sweepNow());
    case 'GET /admin/state':
      return sendJson(res, 200, { blocks: target.blockCount() });
    case 'GET /admin/counts':
      return sendJson(res, 200, target.uploadCounts());
    default:
      throw new HttpError(404, `no admin route ${route}`);
  }
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req, { limit: 64 * 1024 });
  try {
    return JSON.parse(body.toString('utf8') || 'null');
  } catch {
    throw new HttpError(400, 'body is not valid JSON');
  }
}
