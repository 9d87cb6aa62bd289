import http from 'node:http';
import net from 'node:net';

/** A made-up host name only the test proxy knows (it sends it to 127.0.0.1), as a real proxy resolves names itself. */
export const FAKE_HOST = 'emulator.test';

export interface ForwardProxy {
  url: string;
  /** Requests it forwarded (absolute-URI requests and CONNECT tunnels). */
  count: number;
  /** The absolute-URI requests it forwarded, in order: path and body size (Content-Length). */
  requests: ReadonlyArray<{ method: string; path: string; bodyBytes: number }>;
  close(): Promise<void>;
}

/** A tiny HTTP forward proxy on 127.0.0.1: absolute-URI requests and CONNECT, counting each. */
export async function startForwardProxy(): Promise<ForwardProxy> {
  const state = { count: 0 };
  const requests: Array<{ method: string; path: string; bodyBytes: number }> = [];
  const server = http.createServer((req, res) => {
    state.count++;
    const target = new URL(req.url ?? '/');
    requests.push({
      method: req.method ?? '',
      path: target.pathname,
      bodyBytes: Number(req.headers['content-length'] ?? 0),
    });
    const host = target.hostname === FAKE_HOST ? '127.0.0.1' : target.hostname;
    const up = http.request(
      { host, port: target.port, method: req.method, path: target.pathname + target.search, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    state.count++;
    const [host, port] = (req.url ?? '').split(':');
    const up = net.connect(Number(port), host === FAKE_HOST ? '127.0.0.1' : host, () => {
      socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
      up.write(head);
      up.pipe(socket).pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get count() {
      return state.count;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
