import type { Writable } from 'node:stream';

export function sandboxRefused(output: string): boolean;
export function sandboxAdvice(binary: string): string;
export function runElectron(
  binary: string,
  args: string[],
  opts?: { signals?: NodeJS.Signals[]; stderr?: Writable },
): Promise<{ code: number | null; signal: NodeJS.Signals | null; sandboxRefused: boolean }>;
