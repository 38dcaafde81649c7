import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isSandgymError } from '../../errors.ts';
import { readBody } from './http-transport.ts';
import { Http1Client, type Http1Request } from './http1-client.ts';

/**
 * A server that answers each request with scripted bytes, written in the pieces given (with a pause
 * between them), so that every framing and every split is exercised exactly.
 */
type Script = (Buffer | string | { closeAfter: true })[];
let script: Script = [];
let requests: string[] = [];
let connections = 0;
const sockets = new Set<net.Socket>();
const server = net.createServer((socket) => {
  connections++;
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  let buffered = '';
  socket.on('data', async (b) => {
    buffered += b.toString('latin1');
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0) return;
    const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
    if (buffered.length < end + 4 + length) return;
    requests.push(buffered);
    buffered = '';
    for (const piece of script) {
      if (typeof piece === 'object' && 'closeAfter' in piece) {
        socket.end();
        return;
      }
      socket.write(piece);
      await new Promise((r) => setTimeout(r, 2));
    }
  });
});
let origin: URL;
const client = new Http1Client();

before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
after(async () => {
  client.close();
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

function call(o: Partial<Http1Request> = {}) {
  return client.request({ method: 'POST', origin, path: '/x', headers: {}, timeoutMs: 2000, ...o });
}

async function text(o: Partial<Http1Request> = {}): Promise<{ status: number; body: string }> {
  const res = await call(o);
  return { status: res.statusCode, body: (await readBody(res, 1 << 20, 2000)).toString() };
}

/** Every byte on its own: each parser state must carry over between reads. */
const byteByByte = (s: string) => [...Buffer.from(s)].map((b) => Buffer.from([b]));

describe('Http1Client framing', () => {
  test('reads a Content-Length body, and sends the request it was given', async () => {
    script = ['HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello'];
    requests = [];
    const res = await call({ headers: { 'X-Token': 't' }, body: Buffer.from('abc') });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-a'], '1');
    assert.equal((await readBody(res, 100, 2000)).toString(), 'hello');
    assert.match(
      requests[0]!,
      /^POST \/x HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\nX-Token: t\r\nContent-Length: 3\r\n\r\nabc$/,
    );
  });

  test('reads a chunked body with extensions and trailers, split at every byte', async () => {
    const response =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n!\r\n0\r\nX-Trailer: y\r\n\r\n';
    script = byteByByte(response);
    assert.deepEqual(await text(), { status: 200, body: 'hello!' });
  });

  test('skips interim responses and reads a body that ends with the connection', async () => {
    script = [
      'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\n\r\nuntil ',
      'close',
      { closeAfter: true },
    ];
    assert.deepEqual(await text(), { status: 200, body: 'until close' });
  });

  test('delivers body bytes that came with the head to a reader that listens later', async () => {
    script = ['HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nsoon'];
    const res = await call();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal((await readBody(res, 100, 2000)).toString(), 'soon');
  });

  test('pause holds the body back, even within one read, and resume lets it through', async () => {
    script = ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n1\r\nb\r\n0\r\n\r\n'];
    const res = await call();
    const seen: string[] = [];
    res.on('data', (b: Buffer) => {
      seen.push(b.toString());
      if (seen.length === 1) res.pause();
    });
    const ended = new Promise((r) => res.on('end', r));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(seen, ['a']);
    res.resume();
    await ended;
    assert.deepEqual(seen, ['a', 'b']);
  });
});

describe('Http1Client connections', () => {
  test('reuses a kept-alive connection, and not one the server said to close', async () => {
    script = ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'];
    await text();
    const before = connections;
    await text();
    await text();
    assert.equal(connections, before);
    script = ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'];
    await text();
    await text();
    assert.equal(connections, before + 1);
  });

  test('closes a connection that sent bytes past the end of a response', async () => {
    script = ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA'];
    assert.deepEqual(await text(), { status: 200, body: 'ok' });
    const before = connections;
    script = ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'];
    assert.deepEqual(await text(), { status: 200, body: 'ok' });
    assert.equal(connections, before + 1);
  });

  test('does not hand out a connection whose idle time ran out in the same turn', async () => {
    // timeout=1 makes the pool's idle limit 0 ms: the limit's timer and the call's below fire in one turn.
    script = ['HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 2\r\n\r\nok'];
    for (let i = 0; i < 20; i++) {
      await text();
      const next = await new Promise((resolve) => setTimeout(() => resolve(text()), 0));
      assert.deepEqual(next, { status: 200, body: 'ok' });
    }
  });

  test('drops an idle connection the server closed, and the next call opens a new one', async () => {
    script = ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'];
    await text();
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await text(), { status: 200, body: 'ok' });
  });
});

describe('Http1Client failures', () => {
  const failure = async (p: Promise<unknown>, pattern: RegExp) => {
    const e = await p.then(
      () => assert.fail('expected a failure'),
      (x: unknown) => x,
    );
    assert.ok(isSandgymError(e), String(e));
    assert.match((e as Error).message, pattern);
  };

  test('a server that never answers fails at the head deadline, retryably', async () => {
    script = [];
    const e = await call({ timeoutMs: 50 }).catch((x: unknown) => x);
    assert.ok(isSandgymError(e) && e.isRetryable);
    assert.match((e as Error).message, /POST 127\.0\.0\.1:\d+\/x: no response within 50 ms/);
  });

  test('an abort rejects with its reason', async () => {
    script = [];
    const controller = new AbortController();
    const pending = call({ signal: controller.signal });
    controller.abort(new Error('stop'));
    await assert.rejects(pending, /stop/);
  });

  test('malformed heads and chunks fail with what was wrong', async () => {
    script = ['SMTP ready\r\n\r\n'];
    await failure(call(), /malformed HTTP response: bad status line "SMTP ready"/);
    script = ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'];
    await failure(text(), /malformed HTTP response: bad chunk size "zz"/);
    script = ['HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'];
    await failure(call(), /bad Content-Length/);
    script = [`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(70_000)}\r\n\r\n`];
    await failure(call(), /a head (or line )?over 65536 bytes/);
  });

  test('a body cut by the server fails the reader, and a header with a line break is refused', async () => {
    script = ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort', { closeAfter: true }];
    await failure(text(), /the connection closed in the middle of the response/);
    await failure(call({ headers: { X: 'a\r\nInjected: 1' } }), /invalid HTTP header/);
  });
});

test('Http1Client speaks HTTPS with SNI', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandgym-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(join(dir, 'cert.pem'));
    let servername: string | undefined;
    const tlsServer = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
      servername = (req.socket as import('node:tls').TLSSocket).servername || undefined;
      res.end('secure');
    });
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    const port = (tlsServer.address() as AddressInfo).port;
    const tlsClient = new Http1Client({ ca: cert });
    try {
      const res = await tlsClient.request({
        method: 'GET',
        origin: new URL(`https://localhost:${port}`),
        path: '/',
        headers: {},
        timeoutMs: 5000,
      });
      assert.equal((await readBody(res, 100, 5000)).toString(), 'secure');
      assert.equal(servername, 'localhost');
    } finally {
      tlsClient.close();
      tlsServer.closeAllConnections();
      await new Promise((r) => tlsServer.close(r));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
