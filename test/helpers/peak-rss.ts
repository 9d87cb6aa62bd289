import { readFileSync } from 'node:fs';

/**
 * The high-water mark of this process's own resident set, in bytes: Linux's VmHWM (of the
 * memory this program mapped since exec). Not `resourceUsage().maxRSS`: the kernel carries
 * that over from the forked copy of the parent, so a child of a big parent (the bench with
 * its browser driver, a vitest worker) reported the parent's RSS as its own. Elsewhere
 * maxRSS is all there is. Used by the bench's uploader and the tests' measuring children.
 */
export function ownPeakRssBytes(): number {
  try {
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kib !== undefined) return Number(kib) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}
