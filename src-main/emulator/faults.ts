import { z } from 'zod';

/**
 * Fault injection (off by default). Every decision comes from a counter-based PRNG keyed
 * by (seed, fault kind, endpoint, n-th request of that endpoint), so a run that makes the
 * same requests per endpoint in the same order meets the same faults: a failing run
 * replays from its seed. `events` keeps the recent decisions so a test can compare runs.
 */
export const FAULT_ENDPOINTS = ['mkblk', 'bput', 'mkfile', 'form', 'fmgr', 'vca', 'stat', 'download'] as const;
export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];

const endpointList = z.array(z.enum(FAULT_ENDPOINTS)).optional();
const rate = z.number().min(0).max(1);

export const faultConfigSchema = z
  .object({
    /** Seed of the PRNG; same seed, same faults. Default 1. */
    seed: z.number().int().optional(),
    /** Answer `status` (default 503) instead of handling, with probability `rate`. */
    errors: z
      .array(
        z.object({ endpoints: endpointList, rate, status: z.number().int().min(400).max(999).optional() }).strict(),
      )
      .optional(),
    /** Added before handling a request: latencyMs plus up to latencyJitterMs more. */
    latencyMs: z.number().min(0).max(60_000).optional(),
    latencyJitterMs: z.number().min(0).max(60_000).optional(),
    latencyEndpoints: endpointList,
    /** Cap on how fast a request body of mkblk/bput is read, bytes per second. */
    bandwidthBytesPerSec: z.number().positive().optional(),
    /** With probability `rate`, the connection is reset after half of the request body. */
    reset: z.object({ rate, endpoints: endpointList }).strict().optional(),
    /**
     * Forced ctx expiry on bput: with probability `rate`, and/or on every `afterUses`-th use
     * of a ctx (counting every bput that presents a valid ctx), the ctx is refused with 401.
     */
    ctxExpiry: z
      .object({ rate: rate.optional(), afterUses: z.number().int().min(1).optional() })
      .strict()
      .optional(),
  })
  .strict();

export type FaultConfig = z.infer<typeof faultConfigSchema>;

export class FaultConfigError extends Error {
  override readonly name = 'FaultConfigError';
}

/** Validates a fault configuration (e.g. parsed from --faults JSON or the admin route). */
export function parseFaultConfig(raw: unknown): FaultConfig {
  const r = faultConfigSchema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first && first.path.length ? first.path.join('.') : 'config';
    throw new FaultConfigError(`invalid fault configuration at ${where}: ${first?.message ?? 'invalid'}`);
  }
  return r.data;
}

export interface FaultEvent {
  kind: 'error' | 'reset' | 'ctx-expiry' | 'latency';
  endpoint: FaultEndpoint;
  /** Which request of that endpoint (from 0) met the fault. */
  n: number;
  status?: number;
  ms?: number;
}

const MAX_EVENTS = 1000;

/** 32-bit mix (splitmix32 finalizer). */
function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97);
  return (x ^ (x >>> 15)) >>> 0;
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function applies(endpoints: readonly FaultEndpoint[] | undefined, e: FaultEndpoint): boolean {
  return endpoints === undefined || endpoints.includes(e);
}

export class FaultInjector {
  private cfg: FaultConfig = {};
  private counters = new Map<string, number>();
  private ctxUses = 0;
  readonly events: FaultEvent[] = [];

  constructor(cfg: FaultConfig = {}) {
    this.set(cfg);
  }

  /** Replaces the configuration and restarts the PRNG and counters from the seed. */
  set(cfg: FaultConfig): void {
    this.cfg = parseFaultConfig(cfg);
    this.counters.clear();
    this.ctxUses = 0;
    this.events.length = 0;
  }

  get config(): FaultConfig {
    return structuredClone(this.cfg);
  }

  get active(): boolean {
    const c = this.cfg;
    return Boolean(
      c.errors?.length || c.latencyMs || c.latencyJitterMs || c.bandwidthBytesPerSec || c.reset || c.ctxExpiry,
    );
  }

  /** Uniform [0, 1) for the n-th draw of (kind, endpoint). */
  private draw(kind: string, endpoint: FaultEndpoint, salt = 0): { n: number; u: number } {
    const counterKey = `${kind}/${endpoint}/${salt}`;
    const n = this.counters.get(counterKey) ?? 0;
    this.counters.set(counterKey, n + 1);
    const seed = this.cfg.seed ?? 1;
    const h = mix(mix(seed ^ hashString(counterKey)) ^ mix(n + 0x9e3779b9));
    return { n, u: h / 2 ** 32 };
  }

  private record(e: FaultEvent): void {
    this.events.push(e);
    if (this.events.length > MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS);
  }

  /** Status to answer instead of handling this request, or undefined. */
  errorFor(endpoint: FaultEndpoint): number | undefined {
    const rules = this.cfg.errors ?? [];
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i]!;
      if (!applies(rule.endpoints, endpoint)) continue;
      const { n, u } = this.draw('error', endpoint, i);
      if (u < rule.rate) {
        const status = rule.status ?? 503;
        this.record({ kind: 'error', endpoint, n, status });
        return status;
      }
    }
    return undefined;
  }

  /** Milliseconds to wait before handling this request (0 for none). */
  latencyFor(endpoint: FaultEndpoint): number {
    const base = this.cfg.latencyMs ?? 0;
    const jitter = this.cfg.latencyJitterMs ?? 0;
    if ((base === 0 && jitter === 0) || !applies(this.cfg.latencyEndpoints, endpoint)) return 0;
    const { n, u } = this.draw('latency', endpoint);
    const ms = Math.round(base + jitter * u);
    this.record({ kind: 'latency', endpoint, n, ms });
    return ms;
  }

  get bandwidthBytesPerSec(): number | undefined {
    return this.cfg.bandwidthBytesPerSec;
  }

  /** True when this request's connection is to be reset in the middle of its body. */
  resetFor(endpoint: FaultEndpoint): boolean {
    const r = this.cfg.reset;
    if (!r || !applies(r.endpoints, endpoint)) return false;
    const { n, u } = this.draw('reset', endpoint);
    if (u >= r.rate) return false;
    this.record({ kind: 'reset', endpoint, n });
    return true;
  }

  /** Called once per bput that presents an otherwise valid ctx: true means refuse it. */
  ctxExpired(): boolean {
    const c = this.cfg.ctxExpiry;
    if (!c) return false;
    this.ctxUses++;
    const { n, u } = this.draw('ctx-expiry', 'bput');
    const byCount = c.afterUses !== undefined && this.ctxUses % c.afterUses === 0;
    const byRate = c.rate !== undefined && u < c.rate;
    if (!byCount && !byRate) return false;
    this.record({ kind: 'ctx-expiry', endpoint: 'bput', n });
    return true;
  }
}
