import path from 'node:path';
import { API_METHODS } from '../../src-main/shared/contract';

/**
 * Seeded inputs for the headless door's fuzz: method names (real, mutated, junk) and bodies
 * (valid inputs mutated, random JSON, bytes that are not JSON). Every string is kept inside
 * `play` when used as a path: no leading '/', no '..', absolute ones only under `play`; so a
 * fuzzed `roots.add` or `transfers.add` can only reach the sandbox.
 */
export class DoorInputs {
  constructor(
    private readonly rnd: () => number,
    private readonly play: string,
  ) {}

  private int(n: number): number {
    return Math.floor(this.rnd() * n);
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  /** A random string: ASCII, quotes, control characters, unicode, percent escapes; never a path out of `play`. */
  str(): string {
    const alphabet = [
      'a',
      'Z',
      '0',
      ' ',
      '"',
      "'",
      '\\',
      '\u0000',
      '\n',
      '%2e',
      '%00',
      'é',
      '\u{1F600}',
      '<',
      '{',
      '_',
      '/',
    ];
    const n = this.pick([0, 1, 3, 8, 40, 300]);
    let s = '';
    for (let i = 0; i < n; i++) s += this.pick(alphabet);
    s = s.replace(/^\/+/, '').replace(/\.\./g, '_');
    return this.rnd() < 0.15 ? path.join(this.play, s) : s;
  }

  private num(): number {
    return this.pick([0, -1, 1, 2, 7, 1.5, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, Number.MAX_SAFE_INTEGER + 2]);
  }

  /** Any JSON value, nested up to `depth`. */
  value(depth = 2): unknown {
    const k = this.int(depth > 0 ? 8 : 5);
    if (k === 0) return null;
    if (k === 1) return this.rnd() < 0.5;
    if (k === 2) return this.num();
    if (k <= 4) return this.str();
    if (k === 5) return Array.from({ length: this.int(4) }, () => this.value(depth - 1));
    const o: Record<string, unknown> = {};
    for (let i = this.int(4); i > 0; i--) o[this.key()] = this.value(depth - 1);
    return o;
  }

  private key(): string {
    return this.pick([
      'path',
      'paths',
      'id',
      'ids',
      'all',
      'bucket',
      'prefix',
      'target',
      'options',
      'states',
      'limit',
      '__proto__',
      'constructor',
      this.str(),
    ]);
  }

  /** A plausible input of `method`, then mutated (a key dropped, a value replaced, a key added) or not. */
  input(method: string): unknown {
    const play = this.play;
    const samples: Record<string, unknown> = {
      'transfers.list': { states: ['done'], limit: 10 },
      'transfers.get': { id: 1 },
      'transfers.add': { paths: [path.join(play, 'a.txt')], target: { bucket: 'local', prefix: 'fz/' } },
      'transfers.pause': { ids: [1, 2] },
      'transfers.resume': { all: true },
      'transfers.cancel': { ids: [3] },
      'roots.add': { path: play, bucket: 'local', prefix: 'fzr/' },
      'roots.plan': { path: play, bucket: 'local' },
      'roots.remove': { id: 1 },
    };
    const base = structuredClone(Object.hasOwn(samples, method) ? samples[method] : this.value());
    if (typeof base !== 'object' || base === null || this.rnd() < 0.3) return base;
    const o = base as Record<string, unknown>;
    const keys = Object.keys(o);
    const m = this.int(4);
    if (m === 0 && keys.length) delete o[this.pick(keys)];
    else if (m === 1 && keys.length) o[this.pick(keys)] = this.value();
    else if (m === 2) o[this.key()] = this.value();
    return o;
  }

  /** A method name: mostly real ones, else mutated or junk (slashes, dots, escapes, long). */
  method(): string {
    const real = this.pick(API_METHODS);
    const r = this.rnd();
    if (r < 0.7) return real;
    if (r < 0.8) return real.toUpperCase();
    if (r < 0.85) return `${real}x`;
    if (r < 0.9) return real.replace('.', this.pick(['/', '%2e', '..', '', '.constructor.']));
    if (r < 0.95) return this.pick(['__proto__.x', 'constructor.name', 'toString', 'hasOwnProperty.call', 'ws', '']);
    return encodeURIComponent(this.str()).slice(0, 200) || 'x';
  }

  /** The HTTP body: JSON of an input, nothing, or bytes that are not JSON. */
  body(method: string): string | Uint8Array | undefined {
    const r = this.rnd();
    if (r < 0.75) return JSON.stringify(this.input(method));
    if (r < 0.82) return undefined;
    if (r < 0.9) return JSON.stringify(this.input(method)).slice(0, 1 + this.int(20));
    if (r < 0.95) return Uint8Array.from({ length: 1 + this.int(200) }, () => this.int(256));
    return `{"a":${'['.repeat(200 + this.int(3000))}`;
  }

  /** Token handling of one request: right, missing or wrong. */
  auth(): 'token' | 'none' | 'wrong' {
    const r = this.rnd();
    return r < 0.85 ? 'token' : r < 0.93 ? 'none' : 'wrong';
  }

  contentType(): string | undefined {
    return this.rnd() < 0.85
      ? 'application/json'
      : this.pick([undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']);
  }

  /** A WebSocket frame: a call (mutated or not), a subscribe, or text/bytes that are no frame. */
  frame(id: number): string | Uint8Array {
    const r = this.rnd();
    const method = this.method();
    if (r < 0.6) return JSON.stringify({ type: 'call', id, method, input: this.input(method) });
    if (r < 0.7) return JSON.stringify({ type: 'subscribe', events: [this.str(), 'transferUpdated'] });
    if (r < 0.8) return JSON.stringify({ type: this.str(), id: this.value(), method: this.value() });
    if (r < 0.9) return JSON.stringify(this.value());
    return Uint8Array.from({ length: 1 + this.int(100) }, () => this.int(256));
  }
}
