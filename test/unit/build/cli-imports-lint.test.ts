import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The CLI goes through the contract (shared/) and the service: ESLint refuses an import of
 * engine/, sync/, protocol/ or tasks/ from src-main/cli/ (eslint.config.js), type imports too.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');

async function restricted(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('lint keeps the CLI on the contract', () => {
  it('refuses engine, sync, protocol and tasks imports from src-main/cli, and allows shared and service', async () => {
    const code = [
      "import { checkBlockSize } from '../../engine/plan';",
      "import { normalizeWatchOptions } from '../../sync/options';",
      "import { validateFop } from '../../protocol/fops';",
      "import type { FmgrTaskView } from '../../tasks/fmgr-view';",
      "import { SCHEMAS } from '../../shared/schemas';",
      "import { printable } from '../../service/expand-paths';",
      'export const all = [checkBlockSize, normalizeWatchOptions, validateFop, SCHEMAS, printable];',
      'export type T = FmgrTaskView;',
      '',
    ].join('\n');
    const messages = await restricted('src-main/cli/commands/probe.ts', code);
    expect(messages).toHaveLength(4);
    for (const m of messages) expect(m).toMatch(/src-main\/cli may not import/);
    for (const layer of ['engine/plan', 'sync/options', 'protocol/fops', 'tasks/fmgr-view'])
      expect(messages.some((m) => m.includes(layer))).toBe(true);
  }, 60_000); // ESLint's start-up with typescript-eslint: a few CPU-seconds
});
