import { accessSync, constants } from 'node:fs';

/**
 * Root reads every file and folder whatever its mode, so a test of "permission denied" that
 * runs as root starts its child without the two capabilities that allow that
 * (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), through util-linux's `setpriv`. The child stays
 * root, so it reaches the checkout and node_modules wherever they live (a clone in /root,
 * a 0700 temp folder), and only a mode like 000 stops it, as it stops a user. Not root: the
 * command is returned as it is.
 */
export function withoutRootReadRights(command: string, args: readonly string[]): [string, string[]] {
  return withoutCapabilities(['dac_override', 'dac_read_search'], command, args);
}

/**
 * The command run as root without the given capabilities (names as setpriv takes them, such
 * as `sys_admin` for mounting), in the bounding and inheritable sets so no exec gets them
 * back. Not root: returned as it is (a user has none of them).
 */
export function withoutCapabilities(
  caps: readonly string[],
  command: string,
  args: readonly string[],
): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, [...args]];
  const setpriv = '/usr/bin/setpriv';
  try {
    accessSync(setpriv, constants.X_OK);
  } catch {
    throw new Error(`${setpriv} is missing: install util-linux (root's permission tests drop capabilities with it)`);
  }
  const drop = caps.map((c) => `-${c}`).join(',');
  return [setpriv, [`--inh-caps=${drop}`, `--bounding-set=${drop}`, '--', command, ...args]];
}
