import type { SpawnOptions } from 'node:child_process';
import http from 'node:http';
import { spawnBlocklift, waitFor, type ChaosContext, type TrackedChild } from './context';

/** A running `blocklift serve` child: its base URL, its token, and a JSON caller of its API. */
export interface ServeChild {
  proc: TrackedChild;
  base: string;
  token: string;
  /** POST /api/<method> with the token (Bearer); resolves with the status and the parsed JSON body. */
  call(method: string, input?: unknown): Promise<{ status: number; body: unknown }>;
}

const LOGIN = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=([A-Za-z0-9_-]+)/;

/**
 * Starts `blocklift serve --port 0 --data <dataDir>` and waits for the login URL it prints
 * (`http://127.0.0.1:P/?token=…` on stdout). Throws with its stderr when it exits first or
 * prints nothing within `timeoutMs`.
 */
export async function startServe(
  ctx: ChaosContext,
  dataDir: string,
  opts: SpawnOptions = {},
  timeoutMs = 90_000,
  nodeArgs: string[] = [],
): Promise<ServeChild> {
  const proc = spawnBlocklift(ctx, ['serve', '--port', '0', '--data', dataDir], opts, nodeArgs);
  let gone = false;
  void proc.exited.then(() => (gone = true));
  await waitFor(() => gone || LOGIN.test(proc.stdout()), timeoutMs);
  const m = LOGIN.exec(proc.stdout());
  if (!m) {
    if (!gone) proc.child.kill('SIGKILL');
    throw new Error(`blocklift serve printed no URL (exited: ${gone}): ${proc.stderr().slice(0, 800)}`);
  }
  const base = m[1]!;
  const token = m[2]!;
  return {
    proc,
    base,
    token,
    async call(method, input) {
      const res = await post(`${base}/api/${method}`, token, input === undefined ? undefined : JSON.stringify(input));
      const text = res.text;
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Left as text: the caller reports a reply that is not JSON.
      }
      return { status: res.status, body };
    },
  };
}

/**
 * POST with node:http, which waits as long as the server takes: a verb that does much (a
 * `roots.add` whose first scan admits 100,000 files on a crowded machine) may answer after
 * fetch's 300 s limit for the reply's headers. Sections bound their own waits.
 */
function post(url: string, token: string, body: string | undefined): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
      },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.end(body);
  });
}

/** The value of an ok Result, or throws with the reply (a call the section relies on failed). */
export async function must<T>(s: ServeChild, method: string, input?: unknown): Promise<T> {
  const r = await s.call(method, input);
  const b = r.body as { ok?: boolean; value?: T };
  if (r.status !== 200 || b.ok !== true) throw new Error(`${method} answered ${r.status} ${JSON.stringify(r.body)}`);
  return b.value as T;
}

/**
 * SIGTERM, then its exit code; 'hung' (and a SIGKILL) when it has not exited within
 * `timeoutMs` (something it opened still holds its event loop).
 */
export async function stopServe(s: ServeChild, timeoutMs = 60_000): Promise<number | string> {
  if (s.proc.child.exitCode === null && s.proc.child.signalCode === null) s.proc.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), timeoutMs)));
  const code = await Promise.race([s.proc.exited, hung]);
  clearTimeout(timer);
  if (code === 'hung') {
    s.proc.child.kill('SIGKILL');
    await s.proc.exited;
  }
  return code;
}
