import { CliError } from './cli-error';

/** commander accumulator for a repeatable flag: `--x a --x b` → ['a', 'b']. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Reads a flag's value as a whole number in [min, max]; a CliError says what was expected. */
export function wholeNumber(flag: string, value: unknown, min: number, max: number): number {
  const text = String(value).trim();
  if (!/^-?\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new CliError(`${flag} must be a whole number from ${min} to ${max}, not "${String(value)}"`);
  return Number(text);
}

/** The same check as a commander argument parser: `.option('--port <p>', '…', wholeNumberParser('--port', 0, 65535))`. */
export function wholeNumberParser(flag: string, min: number, max: number): (value: string) => number {
  return (value) => wholeNumber(flag, value, min, max);
}
