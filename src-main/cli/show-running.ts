import { existsSync } from 'node:fs';
import path from 'node:path';
import { databaseFile, defaultDataDir } from '../service/data-dir';
import { liveDoor } from '../service/door-file';
import { TOKEN_QUERY } from '../shared/wire';
import { connectDoor } from './door-client';

/** What `npm start` found on its data folder (bin/start.mjs). */
export type RunningApp =
  /** No app runs there (or its door does not answer): start one. */
  | { kind: 'none' }
  /** The desktop app runs: its window was brought to the front, the paths handed to it. */
  | { kind: 'shown'; url: string }
  /** `blocklift serve` runs: no window to show; its address with the token, to open in a browser. */
  | { kind: 'headless'; loginUrl: string };

/**
 * `npm start` while an app already runs on its data folder (the default one, or
 * BLOCKLIFT_DATA): the running app is asked through its local door (door.json, the door
 * `serve` and the desktop app open) to show its window (`app.show`), with the arguments that
 * are existing files or folders handed to it to upload, as a second launch of the desktop app
 * hands them. So a second start focuses the app instead of failing on the queue lock.
 */
export async function showRunningApp(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<RunningApp> {
  const dataDir = defaultDataDir(env);
  const door = liveDoor(dataDir, databaseFile(dataDir));
  if (!door) return { kind: 'none' };
  const client = await connectDoor(door).catch(() => undefined);
  if (!client) return { kind: 'none' };
  try {
    const paths = args.filter((a) => !a.startsWith('-') && existsSync(a)).map((a) => path.resolve(a));
    const shown = await client.app.show({ paths });
    if (shown.ok) return { kind: 'shown', url: door.url };
    if (shown.error.code === 'not-supported-here')
      return { kind: 'headless', loginUrl: `${door.url}/?${TOKEN_QUERY}=${door.token}` };
    return { kind: 'none' };
  } finally {
    await client.close();
  }
}
