import { Command, CommanderError } from 'commander';
import { APP_VERSION } from '../shared/version';
import { CliError } from './cli-error';

/**
 * The `blocklift` command. Each subcommand lives in commands/<name>.ts and exports
 * `register(program)`; this file only wires them and turns errors into exit codes.
 */
type Register = (program: Command) => void;

async function commandModules(): Promise<Register[]> {
  const modules: Array<{ register: Register }> = [
    // one line per subcommand module
    await import('./commands/emulator'),
    await import('./commands/fmgr'),
    await import('./commands/serve'),
    await import('./commands/vca'),
    await import('./commands/upload'),
    await import('./commands/watch'),
  ];
  return modules.map((m) => m.register);
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command('blocklift')
    .description('Blocklift: resumable, verified uploads to the object storage service, with a local emulator.')
    .version(APP_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of await commandModules()) register(program);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode;
    }
    if (e instanceof CliError) {
      process.stderr.write(`blocklift: ${e.message}\n`);
      return e.exitCode;
    }
    process.stderr.write(`blocklift: unexpected error: ${(e as Error)?.stack ?? String(e)}\n`);
    return 70;
  }
}
