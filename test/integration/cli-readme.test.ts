import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli';

/** The README's command examples stay true, and it sends no reader outside the repository. */

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bl-readme-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every `blocklift <command> …` line of the README's shell blocks, continuation lines joined. */
function exampleCommands(): string[][] {
  const blocks = [...readme.matchAll(/```sh\n([^]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, ' '));
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter((l) => /^(npx )?blocklift \w/.test(l))
    .map((l) => l.replace(/^npx /, '').split(/\s+/).slice(1));
}

describe('README', () => {
  it('points only inside the repository, and the protocol page it names exists', () => {
    expect(readme).not.toContain('../shared');
    expect(readme).toContain('docs/protocol.md');
    expect(existsSync(path.join(ROOT, 'docs', 'protocol.md'))).toBe(true);
    for (const m of readme.matchAll(/`((?:src-main|docs)\/[\w./-]+\.(?:md|ts))`/g))
      expect(existsSync(path.join(ROOT, m[1]!)), m[1]).toBe(true);
  });

  it('its example commands use commands and flags that exist, and no example writes data into the working folder', async () => {
    const examples = exampleCommands();
    expect(examples.length).toBeGreaterThan(2);
    for (const args of examples) {
      expect(args).not.toContain('--data'); // the default data folder, not one in the repository
      const help = await runCli([args[0]!, '--help'], { cwd: dir, env: { BLOCKLIFT_DATA: path.join(dir, 'data') } });
      expect(help.code, args.join(' ')).toBe(0);
      for (const flag of args.filter((a) => a.startsWith('--') && a !== '--help'))
        expect(help.stdout, flag).toContain(flag);
    }
  });
});
