import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/**
 * Number of OS watches this process holds: on Linux, the "inotify wd:" lines in
 * /proc/self/fdinfo of every inotify descriptor (one per watched file or folder). Returns
 * null where that cannot be read (not Linux). For benchmarks and tests.
 */
export function countInotifyWatches(): number | null {
  let fds: string[];
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return null;
  }
  let watches = 0;
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) !== 'anon_inode:inotify') continue;
      const info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
      for (const line of info.split('\n')) if (line.startsWith('inotify wd:')) watches++;
    } catch {
      // the descriptor closed while we looked
    }
  }
  return watches;
}
