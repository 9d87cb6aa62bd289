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
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? path.relative(ROOT, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
}

describe('the contract lists are complete at compile time', () => {
  it('compiles as it is', () => {
    expect(errorsWith('export {};\n')).toEqual([]);
  });

  it('an event added to AppEvents but not to APP_EVENT_NAMES is a type error naming it', () => {
    const errors = errorsWith(
      "declare module './contract' { interface AppEvents { newThing: { n: number } } }\nexport {};\n",
    );
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(/src-main\/shared\/contract\.ts: .*"newThing"/);
  });

  it('a verb added to an area but not to API_VERBS is a type error', () => {
    const errors = errorsWith(
      "declare module './contract' { interface AppApi { extra: { go: (i: void) => Promise<Result<null>> } } }\nimport type { Result } from './contract';\nexport {};\n",
    );
    expect(errors.join('\n')).toMatch(/src-main\/shared\/contract\.ts: .*extra/);
  });
});
