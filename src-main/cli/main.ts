import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { dataDirFromFlags, logDir } from '../service/data-dir';
import { APP_VERSION } from '../shared/version';
import { CliError } from './cli-error';
import type { RunningApp } from './show-running';

/**
 * The `blocklift` command. Each subcommand lives in commands/<name>.ts and exports
 * `register(program)`; this file only wires them and turns errors into exit codes:
 *   0 done, 1 something failed, 2 bad input (usage errors included), 70 unexpected error
 *   (one line naming the log file holding the stack; the stack itself with --debug or
 *   BLOCKLIFT_DEBUG=1), 130 interrupted. With --json an error is one JSON line on stdout
 *   too: {"error": {"code", "message"}, "exitCode"}.
 */
type Register = (program: Command) => void;

/** One loader per subcommand module; each registers the top-level command of its name. */
const COMMAND_MODULES: Record<string, () => Promise<{ register: Register }>> = {
  emulator: () => import('./commands/emulator'),
  fmgr: () => import('./commands/fmgr'),
  serve: () => import('./commands/serve'),
  vca: () => import('./commands/vca'),
  upload: () => import('./commands/upload'),
  watch: () => import('./commands/watch'),
};

/**
 * The modules this command line needs: only the named subcommand's (each pulls in its own
 * part of the app, and loading all of them was most of the start-up), none for a bare
 * `--version`, all for anything else (help, an unknown command: commander lists them).
 */
async function commandModules(argv: string[]): Promise<Register[]> {
  const args = argv.slice(2);
  const named = args.find((a) => !a.startsWith('-'));
  let names = Object.keys(COMMAND_MODULES);
  if (named !== undefined && Object.hasOwn(COMMAND_MODULES, named)) names = [named];
  else if (named === undefined && args.length > 0 && args.every((a) => a === '--version' || a === '-V')) names = [];
  const modules = await Promise.all(names.map((n) => COMMAND_MODULES[n]!()));
  return modules.map((m) => m.register);
}

/** Commander's own exits that are not errors (help, version). */
const COMMANDER_OK = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/** bin/start.mjs: the app already running on the data folder, asked to show itself (show-running.ts; loaded only then). */
export async function showRunningApp(args: string[]): Promise<RunningApp> {
  return (await import('./show-running')).showRunningApp(args);
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command('blocklift')
    .description('Blocklift: resumable, verified uploads to the object storage service, with a local emulator.')
    .version(APP_VERSION)
    .option('--debug', 'print the stack of an unexpected error (env BLOCKLIFT_DEBUG=1)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of await commandModules(argv)) register(program);
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (COMMANDER_OK.has(e.code) || e.exitCode === 0) return 0;
      // commander printed its message on stderr already
      if (json) jsonError(e.code.replace(/^commander\./, 'usage-'), e.message.replace(/^error: /, ''), 2);
      return 2;
    }
    if (e instanceof CliError) {
      process.stderr.write(`blocklift: ${e.message}\n`);
      if (json) jsonError(e.code, e.message, e.exitCode);
      return e.exitCode;
    }
    const debug = argv.includes('--debug') || /^(1|true|yes)$/i.test(process.env.BLOCKLIFT_DEBUG ?? '');
    return unexpected(
      e,
      debug,
      json,
      dataDirFromFlags({ data: flagValue(argv, '--data'), db: flagValue(argv, '--db') }),
    );
  }
}

function jsonError(code: string, message: string, exitCode: number): void {
  process.stdout.write(`${JSON.stringify({ error: { code, message }, exitCode })}\n`);
}

/** The value of `--name value` or `--name=value` in argv (the last one, as commander takes it). */
function flagValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === name) value = argv[i + 1];
    else if (a.startsWith(`${name}=`)) value = a.slice(name.length + 1);
  }
  return value || undefined;
}

/**
 * One line for a person, the stack in `logs/cli.log` of the command's data folder (and on
 * stderr with --debug); exit 70.
 */
function unexpected(e: unknown, debug: boolean, json: boolean, dataDir: string): number {
  const err = e instanceof Error ? e : new Error(String(e));
  let logged = '';
  try {
    const dir = logDir(dataDir);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'cli.log');
    appendFileSync(file, `${new Date().toISOString()} unexpected error: ${err.stack ?? err.message}\n`);
    logged = `; details in ${file}`;
  } catch {
    // no log folder: the message below still says what happened
  }
  process.stderr.write(
    `blocklift: unexpected error: ${err.message}${logged}${debug ? '' : ' (run with --debug or BLOCKLIFT_DEBUG=1 to see the stack)'}\n`,
  );
  if (debug) process.stderr.write(`${err.stack ?? err.message}\n`);
  if (json) jsonError('unexpected', err.message, 70);
  return 70;
}
