// Runs the Electron runtime for `npm start` and tells why it ended: in particular when Chromium
// aborted at once because its sandbox is refused (Ubuntu 23.10+ restricts unprivileged user
// namespaces with AppArmor, and the unpacked runtime's chrome-sandbox helper is not set-uid
// root), so that `npm start` can say what to do and fall back to the headless door.
import { spawn } from 'node:child_process';
import path from 'node:path';

/** What Chromium prints before aborting when no sandbox is usable. */
const SANDBOX_REFUSED = [
  /The SUID sandbox helper binary was found, but is not configured correctly/,
  /No usable sandbox!/,
];

/** Whether Electron's output says its sandbox was refused. */
export function sandboxRefused(output) {
  return SANDBOX_REFUSED.some((re) => re.test(output));
}

/** The one line `npm start` prints then: what happened and the command that fixes it. */
export function sandboxAdvice(binary) {
  const helper = path.join(path.dirname(binary), 'chrome-sandbox');
  return (
    "Electron's sandbox is refused by this system (Ubuntu 23.10+ restricts user namespaces with AppArmor); " +
    `to open the desktop window, run: sudo chown root:root ${helper} && sudo chmod 4755 ${helper} ` +
    '(or install the .deb, which brings its own AppArmor profile)'
  );
}

/**
 * Runs `binary args`, its stderr passed through and watched. Resolves with
 * { code, signal, sandboxRefused } when it ends. `signals` are forwarded to it.
 */
export function runElectron(binary, args, { signals = ['SIGINT', 'SIGTERM'], stderr = process.stderr } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['inherit', 'inherit', 'pipe'] });
    const forward = (sig) => child.kill(sig);
    for (const sig of signals) process.on(sig, forward);
    // Only the start matters: keep the first 64 KiB of output to look at.
    let seen = '';
    child.stderr.on('data', (d) => {
      stderr.write(d);
      if (seen.length < 65536) seen += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      for (const sig of signals) process.off(sig, forward);
      resolve({ code, signal, sandboxRefused: code !== 0 && sandboxRefused(seen) });
    });
  });
}
