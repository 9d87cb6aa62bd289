import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { writeDoorFile } from '../service/door-file';
import type { DoorBackend } from '../service/door-backend';
import { startHeadlessDoor, type HeadlessDoor, type HeadlessDoorOptions } from './server';

/**
 * The local door of a running app, whichever app it is (`blocklift serve`, the desktop app):
 * the headless door (server.ts: 127.0.0.1 unless told otherwise, a random token, the
 * contract over HTTP and WebSocket, the web UI, the notification receivers), and `door.json`
 * in the data folder (service/door-file.ts: 0600, url, token, pid, database) once it listens,
 * so that the command line on that data folder hands its work to this app. `close()` removes
 * the file first (only while it is still this process's), then stops the door.
 */
export interface LocalDoor {
  door: HeadlessDoor;
  close(): Promise<void>;
}

export interface LocalDoorOptions extends Omit<HeadlessDoorOptions, 'notificationHandler'> {
  backend: DoorBackend & { notificationHandler?: (req: IncomingMessage, res: ServerResponse) => void };
  dataDir: string;
  /** The queue database the backend runs (a command finds this app only for the same one). */
  dbFile: string;
}

export async function openLocalDoor(opts: LocalDoorOptions): Promise<LocalDoor> {
  const { dataDir, dbFile, ...doorOptions } = opts;
  const door = await startHeadlessDoor({ ...doorOptions, notificationHandler: opts.backend.notificationHandler });
  const removeDoorFile = writeDoorFile(dataDir, { url: door.url, token: door.token, db: dbFile });
  let closing: Promise<void> | undefined;
  return {
    door,
    close: () =>
      (closing ??= (async () => {
        removeDoorFile();
        await door.close();
      })()),
  };
}

/**
 * A free loopback port, for an app that needs its door's address before the door listens
 * (the app service is opened with it as the public base URL of its notify URLs).
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
