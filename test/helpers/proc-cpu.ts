import { readFileSync } from 'node:fs';

/** Linux's clock ticks per second (USER_HZ), the unit of utime and stime in /proc: 100 on every Linux port. */
const CLOCK_TICKS = 100;

/** The fields of a /proc stat line after "pid (comm) " (the name may hold spaces and parentheses). */
function statFields(file: string): string[] {
  const stat = readFileSync(file, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * user and system CPU seconds a process (or one of its threads, `/proc/<pid>/task/<tid>`)
 * has used so far, from /proc: Linux only; throws when the process is gone.
 */
export function cpuSplit(pid: number, tid?: number): { user: number; system: number } {
  const f = statFields(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`);
  // utime and stime: fields 14 and 15 of the whole line, 11 and 12 after "pid (comm) ".
  return { user: Number(f[11]) / CLOCK_TICKS, system: Number(f[12]) / CLOCK_TICKS };
}

/** user + system CPU seconds of a process or one of its threads (cpuSplit). */
export function cpuSeconds(pid: number, tid?: number): number {
  const { user, system } = cpuSplit(pid, tid);
  return user + system;
}

/** The parent's pid of a process (the field after its state). */
export function parentPid(pid: number): number {
  return Number(statFields(`/proc/${pid}/stat`)[1]);
}
