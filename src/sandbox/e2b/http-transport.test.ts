import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { HttpTransport } from './http-transport.ts';

/**
 * A server that closes a kept-alive connection just as the next request arrives on it (what its
 * keep-alive timeout does in a race with the client): the second request on every connection is cut
 * without an answer.
 */
let received = 0;
const perSocket = new WeakMap<object, number>();
const server = http.createServer((req, res) => {
  received++;
  const n = (perSocket.get(req.socket) ?? 0) + 1;
  perSocket.set(req.socket, n);
  if (n > 1) {
    req.socket.destroy();
    return;
  }
  req.resume();
  req.on('end', () => res.end('ok'));
});

describe('HttpTransport on a connection the server closed', () => {
  const transport = new HttpTransport();
  let url: URL;
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });
  after(() => {
    transport.close();
    server.closeAllConnections();
    server.close();
  });

  const call = async (body?: Buffer | Readable) => {
    const res = await transport.request({ method: 'POST', url, headers: {}, timeoutMs: 10_000, body });
    res.resume();
    await once(res, 'end');
    // The connection goes back to the pool a moment after its response ended.
    await new Promise((r) => setTimeout(r, 20));
    return res.statusCode;
  };

  it('sends a request again on a fresh connection when the reused one was cut before any answer', async () => {
    received = 0;
    assert.equal(await call(Buffer.from('first')), 200);
    assert.equal(await call(Buffer.from('second')), 200);
    assert.equal(received, 3, 'the cut request, then its resend');
  });

  it('does not resend a streamed body (it cannot be read twice)', async () => {
    assert.equal(await call(Buffer.from('fresh')), 200);
    await assert.rejects(call(Readable.from([Buffer.from('streamed')])), /socket hang up|ECONNRESET/);
  });
});
