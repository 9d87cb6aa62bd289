import { ServiceError, errorFromReply, type Endpoint } from './errors';
import type { HttpReply } from './http';

/**
 * Turns a reply into the JSON object it must carry: a non-2xx status becomes the
 * service's error; a 2xx whose body is not a JSON object becomes a bad-reply error.
 */
export function jsonObjectReply(endpoint: Endpoint, reply: HttpReply): Record<string, unknown> {
  if (reply.status < 200 || reply.status >= 300) {
    throw errorFromReply(endpoint, reply.status, reply.body, reply.requestId);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.body.toString('utf8'));
  } catch {
    throw badReply(endpoint, reply, `reply is not JSON: ${snippet(reply.body)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badReply(endpoint, reply, 'reply is not a JSON object');
  }
  return parsed as Record<string, unknown>;
}

export function badReply(
  endpoint: Endpoint,
  reply: Pick<HttpReply, 'status' | 'requestId'>,
  message: string,
  code = 'bad-reply',
): ServiceError {
  return new ServiceError({
    kind: 'bad-reply',
    endpoint,
    status: reply.status,
    requestId: reply.requestId,
    code,
    message,
  });
}

function snippet(body: Buffer): string {
  const s = body.toString('utf8', 0, Math.min(200, body.length)).replace(/\s+/g, ' ').trim();
  return s ? `"${s}"` : '(empty)';
}

/** Field readers that name the field when the reply lacks it or has the wrong type. */
export class Fields {
  constructor(
    private readonly endpoint: Endpoint,
    private readonly reply: Pick<HttpReply, 'status' | 'requestId'>,
    readonly obj: Record<string, unknown>,
  ) {}

  string(name: string): string {
    const v = this.obj[name];
    if (typeof v !== 'string')
      throw badReply(this.endpoint, this.reply, `reply field "${name}" is missing or not text`);
    return v;
  }

  optString(name: string): string | undefined {
    const v = this.obj[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw badReply(this.endpoint, this.reply, `reply field "${name}" is not text`);
    return v;
  }

  /** A number, or a numeric string (the service sends some numbers as strings). */
  number(name: string): number {
    const n = toNumber(this.obj[name]);
    if (n === undefined) throw badReply(this.endpoint, this.reply, `reply field "${name}" is missing or not a number`);
    return n;
  }

  optNumber(name: string): number | undefined {
    const v = this.obj[name];
    if (v === undefined || v === null || v === '') return undefined;
    const n = toNumber(v);
    if (n === undefined) throw badReply(this.endpoint, this.reply, `reply field "${name}" is not a number`);
    return n;
  }

  array(name: string): unknown[] {
    const v = this.obj[name];
    if (!Array.isArray(v)) throw badReply(this.endpoint, this.reply, `reply field "${name}" is missing or not a list`);
    return v;
  }

  child(value: unknown, what: string): Fields {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw badReply(this.endpoint, this.reply, `${what} is not a JSON object`);
    return new Fields(this.endpoint, this.reply, value as Record<string, unknown>);
  }
}

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  return undefined;
}
