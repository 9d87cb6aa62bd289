/**
 * An error the emulator decides before reading a request body (bad token, bad Content-Type,
 * unusual Expect) still reaches the client whole: the body is drained before the
 * connection closes, so the client never meets a reset or EPIPE in place of the reply.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator';

const MiB = 1024 * 1024;

interface RawResult {
  reply: string;
  error?: string;
}

/**
 * Sends a mkblk with a bad token and `Connection: close`: the headers and the first part of
 * the body, then (once the reply began or a moment passed) the rest. Resolves with what was
 * read and the socket error met, if any.
 */
function earlyErrorExchange(port: number, bodyBytes: number, pauseMs: number): Promise<RawResult> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    let error: string | undefined;
    const head =
      `POST /mkblk/${bodyBytes}/0 HTTP/1.1\r\nHost: x\r\nAuthorization: UpToken bad:bad:bad\r\n` +
      `UploadBatch: b1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${bodyBytes}\r\nConnection: close\r\n\r\n`;
    const body = Buffer.alloc(bodyBytes, 7);
    const first = Math.min(64 * 1024, bodyBytes);
    let restSent = false;
    const sendRest = () => {
      if (restSent || socket.destroyed) return;
      restSent = true;
      socket.write(body.subarray(first));
    };
    socket.on('data', (c: Buffer) => {
      reply += c.toString('latin1');
      sendRest();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => resolve({ reply, error }));
    socket.once('connect', () => {
      socket.write(head);
      socket.write(body.subarray(0, first), () => {
        if (pauseMs === 0) sendRest();
        else setTimeout(sendRest, pauseMs);
      });
    });
  });
}

describe('early error replies', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it('a 401 decided from the headers arrives although the client is still sending its body', async () => {
    const r = await earlyErrorExchange(emu.port, 2 * MiB, 200);
    expect(r.error).toBeUndefined();
    expect(r.reply).toMatch(/^HTTP\/1\.1 401 /);
    expect(r.reply).toMatch(/"code":"401"/);
  });

  it('holds over a bounded loop of 1–4 MiB bodies sent at once', async () => {
    const failures: RawResult[] = [];
    for (let i = 0; i < 60; i++) {
      const r = await earlyErrorExchange(emu.port, (1 + (i % 4)) * MiB - (i % 3), 0);
      if (r.error !== undefined || !/^HTTP\/1\.1 401 [\s\S]*"code":"401"/.test(r.reply)) failures.push(r);
    }
    expect(failures).toEqual([]);
  });
});

describe('unusual Expect header', () => {
  it('answers 417 with the JSON error body every other error has', async () => {
    const emu = await startTestEmulator();
    try {
      const res = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
        const socket = net.connect(emu.port, '127.0.0.1');
        let text = '';
        socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
        socket.on('error', reject);
        socket.on('close', () => {
          const [head = '', body = ''] = text.split('\r\n\r\n');
          resolve({
            status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]),
            type: /content-type: ([^\r]+)/i.exec(head)?.[1] ?? '',
            body,
          });
        });
        socket.write(
          'POST /mkblk/4/0 HTTP/1.1\r\nHost: x\r\nExpect: 200-maybe\r\nContent-Length: 4\r\nConnection: close\r\n\r\nabcd',
        );
      });
      expect(res.status).toBe(417);
      expect(res.type).toBe('application/json');
      expect(JSON.parse(res.body)).toMatchObject({ code: '417', message: expect.stringMatching(/200-maybe/) });
    } finally {
      await emu.close();
    }
  });
});
