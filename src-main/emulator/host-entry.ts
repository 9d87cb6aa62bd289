import os from 'node:os';
import { parentPort, threadId } from 'node:worker_threads';
import type { Logger, LogLevel } from '../base/logger';
import type { FromEmulator, HostCallName, ToEmulator } from './host-protocol';
import { startEmulator, type RunningEmulator } from './server';

/**
 * The emulator's side of an emulator host (host.ts): runs in a worker thread (messages on
 * parentPort) or a child process (messages on the IPC channel). It starts the emulator
 * when told, serves the host's calls, sends its log lines up, and stops when told (or when
 * the host goes away), then exits.
 */

/**
 * The embedded emulator stands in for a remote service: its CPU must not be the app's.
 * It runs 10 nice steps below the app (at most 19: about a tenth of a core's share against
 * the app's main thread when both want one), set here before it starts any thread, so its
 * threads inherit it. `os.setPriority(0, …)` is this thread on Linux (the worker's own, in
 * worker mode) and the process elsewhere; a system that refuses it leaves the priority as
 * it was. Why, and how it is measured: emulator/README.md "Below the app's priority".
 */
const EMULATOR_NICE_STEPS = 10;
try {
  os.setPriority(0, Math.min(19, os.getPriority(0) + EMULATOR_NICE_STEPS));
} catch {
  // not allowed here: the emulator runs at the app's priority, as before
}

const send: (m: FromEmulator) => void = parentPort
  ? (m) => parentPort!.postMessage(m)
  : (m) => {
      if (process.connected) process.send!(m);
    };

const logger: Logger = Object.fromEntries(
  (['debug', 'info', 'warn', 'error'] as LogLevel[]).map((level) => [
    level,
    (message: string, fields?: Record<string, string | number | boolean | null | undefined>) =>
      send({ t: 'log', level, message, fields }),
  ]),
) as unknown as Logger;

let emulator: RunningEmulator | undefined;
let stopping: Promise<void> | undefined;

function stop(): Promise<void> {
  stopping ??= (async () => {
    try {
      await emulator?.close();
    } finally {
      send({ t: 'closed' });
      // The message port (a worker) or the IPC channel (a child) would keep it alive.
      if (parentPort) parentPort.close();
      else process.disconnect?.();
      // Whatever else still holds the loop does not hold the app's quit.
      setTimeout(() => process.exit(0), 1000).unref();
    }
  })();
  return stopping;
}

function call(name: HostCallName, args: unknown[]): unknown {
  const emu = emulator;
  if (!emu) throw new Error('the emulator is not running');
  switch (name) {
    case 'stat':
      return emu.objects.stat(args[0] as string, args[1] as string);
    case 'putBuffer':
      return emu.objects.putBuffer(
        args[0] as string,
        args[1] as string,
        args[2] as Uint8Array,
        args[3] as Parameters<typeof emu.objects.putBuffer>[3],
      );
    case 'setFaults':
      return emu.setFaults(args[0] as Parameters<typeof emu.setFaults>[0]);
    case 'faultEvents':
      return emu.faultEvents();
    case 'uploadCounts':
      return emu.uploadCounts();
    case 'blockCount':
      return emu.blockCount();
    case 'sweepNow':
      return emu.sweepNow();
    case 'where':
      return { threadId, pid: process.pid, priority: os.getPriority(0) };
  }
}

async function onMessage(m: ToEmulator): Promise<void> {
  if (m.t === 'start') {
    try {
      emulator = await startEmulator({ ...m.options, logger });
      const { port, adminToken, dataDir, config } = emulator;
      send({ t: 'ready', facts: { port, adminToken, dataDir, config } });
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      send({ t: 'start-failed', message: err.message, name: err.name });
      await stop();
    }
  } else if (m.t === 'call') {
    try {
      send({ t: 'reply', id: m.id, ok: true, value: call(m.name, m.args) });
    } catch (e) {
      send({ t: 'reply', id: m.id, ok: false, message: e instanceof Error ? e.message : String(e) });
    }
  } else if (m.t === 'close') {
    await stop();
  }
}

const report = (e: unknown) => logger.error(`host message failed: ${e instanceof Error ? e.message : String(e)}`);
if (parentPort) {
  parentPort.on('message', (m: ToEmulator) => void onMessage(m).catch(report));
} else {
  process.on('message', (m: ToEmulator) => void onMessage(m).catch(report));
  // The app is gone (its end of the channel closed): stop cleanly rather than linger.
  process.on('disconnect', () => void stop().catch(report));
}
