import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { stderrLogger } from '../../../src-main/base/logger';
import { onPortElseAny } from '../../../src-main/emulator/host';

/** Listens on 127.0.0.1:port (0: any free one); rejects with the listen error (EADDRINUSE when taken). */
function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}
const portOf = (s: Server) => (s.address() as { port: number }).port;

/** The rule of the embedded emulator's start (the last run's port) and of the host's restart (its port before). */
describe('onPortElseAny', () => {
  const servers: Server[] = [];
  const lines: string[] = [];
  const logger = stderrLogger('', { write: (l) => void lines.push(l) });
  const start = async (port: number) => {
    const s = await listen(port);
    servers.push(s);
    return s;
  };
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    lines.length = 0;
  });

  it('starts on the port asked for when it is free, on any free one for 0, with nothing logged', async () => {
    const any = await onPortElseAny(0, start, logger);
    const port = portOf(any);
    await new Promise((r) => any.close(r));
    servers.length = 0;
    expect(portOf(await onPortElseAny(port, start, logger))).toBe(port);
    expect(lines).toEqual([]);
  });

  it('when the port is taken: another free port, and one warning naming the port', async () => {
    const squatter = await start(0);
    const port = portOf(squatter);
    const got = await onPortElseAny(port, start, logger);
    expect(portOf(got)).not.toBe(port);
    expect(lines).toEqual([`warn: port ${port} is taken; starting on another port\n`]);
  });

  it('any other start failure is not retried', async () => {
    let calls = 0;
    const failing = async (_port: number) => {
      calls++;
      throw new Error('EACCES: permission denied');
    };
    await expect(onPortElseAny(5, failing, logger)).rejects.toThrow('EACCES');
    expect(calls).toBe(1);
  });
});
