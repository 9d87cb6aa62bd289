import http from 'node:http';
import https from 'node:https';
import { signNotification } from '../protocol/tokens';
import { HttpError } from './http-util';

/** Values of the `$(name)` variables of returnBody and callbackBody (protocol-notes "mkfile"). */
export type UploadVars = Record<string, string>;

const VARIABLE = /\$\(([^)]{1,200})\)/g;

/** Replaces every `$(name)`; unknown names become the empty string. */
export function renderTemplate(template: string, vars: UploadVars, encode: (v: string) => string = (v) => v): string {
  return template.replace(VARIABLE, (_m, name: string) => encode(vars[name] ?? ''));
}

/**
 * Checks that a returnBody can be rendered: a query string (`name=$(fname)&size=$(fsize)`)
 * or a JSON object template (`{"name":$(fname)}`). Returns a reason, or undefined.
 */
export function returnBodyProblem(template: string): string | undefined {
  if (!template.trim().startsWith('{')) return undefined;
  try {
    renderJsonTemplate(template, {});
    return undefined;
  } catch {
    return 'returnBody looks like JSON but is not a valid JSON template';
  }
}

function renderJsonTemplate(template: string, vars: UploadVars): Record<string, unknown> {
  // `"$(x)"` and bare `$(x)` both become a JSON string.
  const text = template.replace(
    /"\$\(([^)]{1,200})\)"|\$\(([^)]{1,200})\)/g,
    (_m, quoted: string | undefined, bare: string | undefined) => JSON.stringify(vars[(quoted ?? bare)!] ?? ''),
  );
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SyntaxError('not an object');
  return parsed as Record<string, unknown>;
}

/**
 * The mkfile reply: without returnBody `{hash, key}`; with one, its pairs (values as
 * strings, in the given order) followed by key and hash. `persistentId` is added when the
 * policy had persistentOps.
 */
export function mkfileReply(
  returnBody: string | undefined,
  vars: UploadVars,
  key: string,
  hash: string,
  persistentId?: string,
): Record<string, unknown> {
  let out: Record<string, unknown> = {};
  if (returnBody && returnBody.trim().startsWith('{')) {
    out = renderJsonTemplate(returnBody, vars);
  } else if (returnBody) {
    for (const [name, template] of new URLSearchParams(returnBody)) out[name] = renderTemplate(template, vars);
  }
  delete out.key;
  delete out.hash;
  out.key = key;
  out.hash = hash;
  if (persistentId !== undefined) out.persistentId = persistentId;
  return out;
}

/** The form body POSTed to callbackUrl (default `key=$(key)&hash=$(hash)`). */
export function renderCallbackBody(callbackBody: string | undefined, vars: UploadVars): string {
  const out = new URLSearchParams();
  for (const [name, template] of new URLSearchParams(callbackBody || 'key=$(key)&hash=$(hash)'))
    out.append(name, renderTemplate(template, vars));
  return out.toString();
}

export const CALLBACK_TIMEOUT_MS = 10_000;

/**
 * POSTs the callback, signed like the service's notifications. Resolves with the
 * callback's JSON reply, which becomes the mkfile reply; rejects with HttpError 579 (the
 * file stays stored) when the callback cannot be reached, does not answer 200, or does
 * not answer JSON.
 */
export function postCallback(url: string, body: string, accessKey: string, secretKey: string): Promise<unknown> {
  const u = new URL(url);
  const lib = u.protocol === 'https:' ? https : http;
  const fail = (why: string) =>
    new HttpError(579, `the file is stored but the callback to ${u.origin}${u.pathname} failed: ${why}`);
  return new Promise((resolve, reject) => {
    const req = lib.request(
      u,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': Buffer.byteLength(body),
          Authorization: signNotification(accessKey, secretKey, u.href, body),
          'User-Agent': 'Blocklift-Emulator',
        },
        timeout: CALLBACK_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > 1024 * 1024) req.destroy(new Error('reply larger than 1 MiB'));
          else chunks.push(c);
        });
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(fail(`it answered HTTP ${res.statusCode}`));
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            reject(fail('its reply is not JSON'));
          }
        });
        res.on('error', (e) => reject(fail(e.message)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${CALLBACK_TIMEOUT_MS} ms`)));
    req.on('error', (e) => reject(fail(e.message)));
    req.end(body);
  });
}
