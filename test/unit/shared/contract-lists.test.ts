import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The contract's run-time lists (API_VERBS, APP_EVENT_NAMES) are checked complete by the
 * compiler: this compiles shared/contract.ts with one more event or verb declared (module
 * augmentation, in memory) and expects the compiler to refuse the list that misses it.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const CONTRACT = path.join(ROOT, 'src-main/shared/contract.ts');
const EXTRA = path.join(ROOT, 'src-main/shared/__extra__.ts');

function errorsWith(extra: string): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => (path.resolve(f) === EXTRA ? extra : read(f));
  const exists = host.fileExists.bind(host);
  host.fileExists = (f) => path.resolve(f) === EXTRA || exists(f);
  const program = ts.createProgram([CONTRACT, EXTRA], options, host);
  // The contract's own diagnostics (and the augmentation's): the other files are tsc's business.
  return [CONTRACT, EXTRA]
    .flatMap((f) => {
      const file = program.getSourceFile(f)!;
      return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    })
    .map(
      (d) =>
        `${d.file ? path.relative(ROOT, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
}

// One compile of the contract with zod's types: about 4 CPU-seconds of the type checker, so
// more than the unit project's default 10 s on a loaded 2-core machine.
const COMPILE_MS = 120_000;

describe('the contract lists are complete at compile time', () => {
  it(
    'an event or a verb declared but not listed is a type error of the contract naming it',
    () => {
      const errors = errorsWith(
        [
          "import type { Result } from './contract';",
          "declare module './contract' {",
          '  interface AppEvents { newThing: { n: number } }',
          '  interface AppApi { extra: { go: (i: void) => Promise<Result<null>> } }',
          '}',
          '',
        ].join('\n'),
      );
      expect(errors.length).toBeGreaterThan(0);
      for (const e of errors) expect(e).toMatch(/^src-main\/shared\/contract\.ts: /);
      expect(errors.join('\n')).toMatch(/src-main\/shared\/contract\.ts: .*"newThing"/);
      expect(errors.join('\n')).toMatch(/src-main\/shared\/contract\.ts: .*extra/);
    },
    COMPILE_MS,
  );
});
