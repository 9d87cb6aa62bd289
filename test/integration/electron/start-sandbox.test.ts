import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runElectron, sandboxAdvice } from '../../../bin/electron-launch.mjs';

/**
 * `npm start` (bin/start.mjs) when Chromium aborts because this system refuses its sandbox
 * (Ubuntu 23.10+ AppArmor): bin/electron-launch.mjs tells it apart from any other exit, so
 * start.mjs says what to do in one line and opens the headless door. The runtime cannot be
 * downloaded here: each "runtime" below is a script that prints what Chromium prints.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(ROOT, '.tmp', 'bl-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A script standing for the runtime: prints `message` on stderr, then runs `then`. */
function runtime(name: string, message: string, then: string): string {
  const file = path.join(dir, name, 'electron');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(path.join(dir, name, 'message'), `${message}\n`);
  writeFileSync(file, `#!/bin/sh\ncat "$(dirname "$0")/message" >&2\n${then}\n`);
  chmodSync(file, 0o755);
  return file;
}

async function run(binary: string) {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (d: Buffer) => (text += d.toString()));
  const ended = await runElectron(binary, ['/app'], { signals: [], stderr });
  return { ...ended, text };
}

// What Electron 41's Chromium prints (setuid_sandbox_host.cc), then it traps.
const SUID_FATAL =
  "[12:34:56.789:FATAL:sandbox/linux/suid/client/setuid_sandbox_host.cc:163] The SUID sandbox helper binary was found, but is not configured correctly. Rather than run without sandboxing I'm aborting now. You need to make sure that /x/node_modules/electron/dist/chrome-sandbox is owned by root and has mode 4755.";

describe('npm start and a refused sandbox', () => {
  it('an abort with the SUID sandbox message is told apart, its output still shown', async () => {
    const r = await run(runtime('suid', SUID_FATAL, 'kill -TRAP $$'));
    expect(r.sandboxRefused).toBe(true);
    expect(r.signal).toBe('SIGTRAP');
    expect(r.text).toContain('The SUID sandbox helper binary was found');
  });

  it('so is "No usable sandbox!" (user namespaces refused, no SUID helper)', async () => {
    const r = await run(
      runtime(
        'userns',
        'FATAL:zygote_host_impl_linux.cc(127)] No usable sandbox! If you are running on Ubuntu 23.10+ …',
        'exit 133',
      ),
    );
    expect(r.sandboxRefused).toBe(true);
  });

  it('any other exit is the app’s own: its code, no fallback', async () => {
    expect(await run(runtime('fails', 'something else', 'exit 3'))).toMatchObject({
      code: 3,
      sandboxRefused: false,
    });
    expect(await run(runtime('quits', '', 'exit 0'))).toMatchObject({ code: 0, sandboxRefused: false });
  });

  it('the line npm start prints names the helper beside the runtime and the commands that fix it', () => {
    const line = sandboxAdvice('/p/node_modules/electron/dist/electron');
    expect(line).not.toContain('\n');
    expect(line).toContain(
      'sudo chown root:root /p/node_modules/electron/dist/chrome-sandbox && sudo chmod 4755 /p/node_modules/electron/dist/chrome-sandbox',
    );
  });
});
