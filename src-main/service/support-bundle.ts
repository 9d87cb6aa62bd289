import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeZip, type ZipEntry } from '../base/zip';
import type { ProxySetting, Settings } from '../shared/contract';
import { APP_VERSION } from '../shared/version';
import type { AccountRecord } from '../store/account-repo';
import { SupportQuery, type SupportTransferRow } from '../store/support-query';
import type { Db } from '../store/db';
import { LOG_DIR } from './log-file';
import type { SecretStore } from './secrets';
import { accountSecretsInUrls, publicAccount } from './account-public';
import { droppedAs, namedAsDropped, stagingDir } from './data-dir';

/** The folder inside the data folder that support bundles are written to. */
export const SUPPORT_DIR = 'support';

export interface SupportBundleDeps {
  db: Db;
  dataDir: string;
  accounts: readonly AccountRecord[];
  secrets: SecretStore;
  settings: Settings;
  proxyOf: (accountId: number) => ProxySetting;
  door: string;
  now?: () => Date;
}

const REQUEST_ID = /request id ([^\s)]+)/;

/**
 * Writes `<dataDir>/support/blocklift-support-<time>.zip` and returns its path and size.
 * Entries: versions.json, settings.json (accounts as `publicAccount` lets them out: no
 * secret, no credentials or query of the token URL, no proxy password), event-log.txt, logs/* (the rotating log files),
 * transfers/{uploaded,failed,skipped}.json (with reasons and the request ids the messages
 * carry; a file dropped in a browser has `droppedAs`, and its reason names it so, as the app
 * shows it, while `localPath` keeps the staged copy's path; the event log and the log files
 * keep the paths the engine read, for support). Every entry passes through `redactor()` before it is zipped: the secret of
 * every account (raw, Base64, URL-safe Base64), what its URLs hold of credentials
 * (`accountSecretsInUrls`: the token URL whole, its password and query values, a proxy
 * password), Authorization headers and upload or management tokens are replaced by `[redacted]`.
 */
export async function writeSupportBundle(deps: SupportBundleDeps): Promise<{ path: string; bytes: number }> {
  const now = deps.now?.() ?? new Date();
  const redact = redactor(secretsOf(deps));
  const q = new SupportQuery(deps.db);
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  const staging = stagingDir(deps.dataDir);
  const entry = (t: SupportTransferRow) => transferEntry(t, droppedAs(staging, t.localPath));
  const entries: Array<{ name: string; text: string }> = [
    { name: 'versions.json', text: json(versions(deps.door, now)) },
    {
      name: 'settings.json',
      text: json({ settings: deps.settings, accounts: deps.accounts.map((a) => publicAccount(a, deps.proxyOf(a.id))) }),
    },
    {
      name: 'event-log.txt',
      text: q
        .events()
        .map(
          (e) =>
            `${new Date(e.at).toISOString()} ${e.level} ${e.kind}${e.transferId ? ` #${e.transferId}` : ''} ${e.message}`,
        )
        .join('\n'),
    },
    { name: 'transfers/uploaded.json', text: json(q.transfers('done').map(entry)) },
    { name: 'transfers/failed.json', text: json(q.transfers('failed').map(entry)) },
    { name: 'transfers/skipped.json', text: json(q.transfers('skipped').map(entry)) },
    ...logFiles(deps.dataDir),
  ];
  const zipped: ZipEntry[] = entries.map((e) => ({
    name: e.name,
    data: Buffer.from(redact(e.text), 'utf8'),
    mtime: now,
  }));
  const dir = path.join(deps.dataDir, SUPPORT_DIR);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `blocklift-support-${now.toISOString().replace(/[:.]/g, '-')}.zip`);
  const { bytes } = await writeZip(file, zipped, { mode: 0o600 });
  return { path: file, bytes };
}

function versions(door: string, now: Date) {
  return {
    generatedAt: now.toISOString(),
    app: APP_VERSION,
    door,
    node: process.versions.node,
    electron: process.versions['electron'] ?? null,
    os: { platform: process.platform, release: os.release(), arch: process.arch },
  };
}

function transferEntry(t: SupportTransferRow, droppedAs: string | undefined) {
  const said = t.errorMessage ?? t.warning;
  const reason = said === null ? null : namedAsDropped(said, t.localPath, droppedAs);
  return {
    id: t.id,
    accountId: t.accountId,
    bucket: t.bucket,
    key: t.key,
    localPath: t.localPath,
    ...(droppedAs !== undefined ? { droppedAs } : {}),
    size: t.size,
    etag: t.etag,
    attempts: t.attempts,
    finishedAt: t.finishedAt === null ? null : new Date(t.finishedAt).toISOString(),
    code: t.errorCode,
    reason,
    requestId: reason ? (REQUEST_ID.exec(reason)?.[1] ?? null) : null,
  };
}

function logFiles(dataDir: string): Array<{ name: string; text: string }> {
  const dir = path.join(dataDir, LOG_DIR);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^blocklift\.log(\.\d+)?$/.test(n));
  } catch {
    return [];
  }
  return names.sort().map((n) => ({ name: `logs/${n}`, text: readFileSync(path.join(dir, n), 'utf8') }));
}

/** Every account secret that resolves (a secret that does not cannot leak), and what its URLs hold. */
function secretsOf(deps: SupportBundleDeps): string[] {
  const out: string[] = [];
  for (const a of deps.accounts) {
    out.push(...accountSecretsInUrls(a, deps.proxyOf(a.id)));
    if (!a.secretRef) continue;
    try {
      out.push(deps.secrets.resolve(a.secretRef));
    } catch {
      // unresolvable: nothing to redact
    }
  }
  return out;
}

/**
 * A function that replaces, in any text, each secret (raw, Base64 and URL-safe Base64,
 * with or without padding), the value of Authorization / Proxy-Authorization headers, and
 * anything shaped like an upload or management token (`<ak>:<sig>:<policy>`, `<ak>:<sig>`
 * after a scheme) with `[redacted]`.
 */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (s.length < 4) continue;
    const b64 = Buffer.from(s, 'utf8').toString('base64');
    for (const f of [s, b64, b64.replace(/=+$/, ''), b64.replace(/\+/g, '-').replace(/\//g, '_')])
      forms.add(f.replace(/=+$/, ''));
  }
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const f of sorted) out = out.split(f).join('[redacted]');
    return out
      .replace(/((?:proxy-)?authorization"?\s*[:=]\s*"?)[^\r\n",}]+/gi, '$1[redacted]')
      .replace(/\b(UpToken|QBox|Qiniu|Bearer|Basic)\s+[\w+/=:.-]{8,}/g, '$1 [redacted]')
      .replace(/\b[\w-]{4,}:[\w-]{16,}={0,2}:[\w-]{16,}={0,2}/g, '[redacted-token]')
      .replace(/([?&](?:token|uptoken|upToken|access_token)=)[^&\s"]+/g, '$1[redacted]');
  };
}
