/**
 * The Content-Security-Policy of every page of the renderer, through either door (the
 * desktop's app:// protocol, electron/app-protocol.ts, and the headless door's HTTP,
 * headless/server.ts): its own scripts only, no remote content, not framed.
 *
 * Without `media-src` (the default: 'self'); each door adds it when it serves a page, with the
 * origins of the accounts' download domains (service/door-csp.ts `doorCsp`), so the review player
 * can load a video from where it is stored.
 *
 * `form-action 'none'`: no form of the app submits to a URL. Every form is handled in script
 * (antd's Form: `form.submit()` runs `onFinish`, and the submit event's default is prevented),
 * so forbidding form navigations costs nothing and closes a way to send what is typed in a
 * page to another origin ('self' would still let an injected form post to the door itself).
 */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');
