import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * Who may use the headless door. Pure functions; server.ts applies them to every request
 * except the notification receivers (which check the service's signature instead).
 *
 * - A random token is printed with the URL; the first visit carries it as `?token=`, after
 *   which it lives in an HttpOnly SameSite=Strict cookie. Scripts may send it as
 *   `Authorization: Bearer <token>`. Anything else is 401.
 * - Bound to a loopback address, the Host header must name loopback (127.0.0.1, localhost,
 *   [::1]) at the door's port: a page on another site whose name resolves to 127.0.0.1 (DNS
 *   rebinding) is refused before the token is even looked at.
 * - A WebSocket upgrade must come from the door's own origin (http://<Host>) or from the
 *   development renderer's origin given at start.
 */

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokenMatches(expected: string, given: string | undefined | null): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1';
}

/** Splits a Host header ("127.0.0.1:7420", "[::1]:7420") into name and port. */
export function parseHostHeader(value: string | undefined): { name: string; port: number | null } | null {
  if (!value) return null;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(value.trim().toLowerCase());
  if (!m?.[1]) return null;
  return { name: m[1], port: m[2] ? Number(m[2]) : null };
}

export interface HostRule {
  /** The door listens on a loopback address only. */
  loopbackOnly: boolean;
  port: number;
}

/** Whether a request's Host header may reach the door (see the file comment). */
export function hostAllowed(rule: HostRule, hostHeader: string | undefined): boolean {
  const host = parseHostHeader(hostHeader);
  if (!host) return false;
  if (!rule.loopbackOnly) return true;
  return isLoopbackHost(host.name) && (host.port ?? 80) === rule.port;
}

/** Whether a WebSocket upgrade's Origin is the door's own page (or the dev renderer's). */
export function originAllowed(
  origin: string | undefined,
  hostHeader: string | undefined,
  extraOrigins: readonly string[],
): boolean {
  if (!origin || !hostHeader) return false;
  if (extraOrigins.includes(origin)) return true;
  return origin === `http://${hostHeader.toLowerCase()}` || origin === `https://${hostHeader.toLowerCase()}`;
}
