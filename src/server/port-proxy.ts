import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import type { Sandbox } from '../sandbox/index.ts';
import { HttpError } from './http-io.ts';

/**
 * `getHost(port)` traffic: an HTTP request for port N of a sandbox is forwarded to 127.0.0.1:N inside
 * that sandbox, through a relay process started in it (python3: a TCP connection piped to its stdin and
 * stdout), so the server never opens a path into the sandbox's network namespace and the sandbox never
 * into the host's. Node's HTTP client speaks over the relay's pipes (`createConnection`), one relay per
 * request. The caller has checked the sandbox's access token.
 */
const RELAY = String.raw`
import os, socket, sys, threading
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
except OSError as e:
    sys.stderr.write(str(e))
    sys.exit(3)
s.settimeout(None)
def up():
    while True:
        b = os.read(0, 65536)
        if not b:
            s.shutdown(socket.SHUT_WR)
            return
        s.sendall(b)
threading.Thread(target=up, daemon=True).start()
while True:
    b = s.recv(65536)
    if not b:
        break
    os.write(1, b)
`;

/** Request headers that are ours (routing, credentials) or hop-by-hop, not the service's. */
const DROPPED = new Set([
  'x-access-token',
  'e2b-sandbox-id',
  'e2b-sandbox-port',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);

export async function proxyToPort(
  sandbox: Sandbox,
  port: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (port < 1 || port > 65535) throw new HttpError(400, `port ${port} is out of range`);
  const relay = await sandbox.spawn(['python3', '-c', RELAY, String(port)], {});
  let stderr = '';
  relay.stderr.on('data', (b: Buffer) => {
    if (stderr.length < 4096) stderr += b.toString();
  });
  relay.stdin.on('error', () => {});
  const end = () => relay.kill('SIGKILL');
  res.once('close', end);
  const headers: Record<string, string | string[]> = { host: `localhost:${port}`, connection: 'close' };
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !DROPPED.has(name)) headers[name] = value;
  }
  try {
    await new Promise<void>((resolve, reject) => {
      const upstream = http.request({
        method: req.method,
        path: req.url,
        headers,
        createConnection: () => Duplex.from({ readable: relay.stdout, writable: relay.stdin }) as never,
      });
      upstream.once('response', (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.once('end', resolve);
        answer.once('error', reject);
      });
      upstream.once('error', async () => {
        const exit = await relay.exited;
        reject(
          new HttpError(
            502,
            exit.exitCode === 3
              ? `nothing answers on port ${port} in sandbox '${sandbox.id}' (${stderr.trim()})`
              : `port ${port} of sandbox '${sandbox.id}' closed the connection without an answer`,
          ),
        );
      });
      req.pipe(upstream);
    });
  } finally {
    res.off('close', end);
    end();
  }
}
