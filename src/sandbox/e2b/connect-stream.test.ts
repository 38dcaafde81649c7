import assert from 'node:assert/strict';
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { ENVELOPE_END_STREAM, encodeJsonEnvelope } from './connect-envelope.ts';
import { ConnectStream } from './connect-stream.ts';
import { HttpTransport, StreamIdleError } from './http-transport.ts';
import { isRpcError } from './rpc-error.ts';

type Handler = (res: ServerResponse) => void;
let handler: Handler = () => {};
let connections = 0;
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/connect+json' });
  handler(res);
});
server.on('connection', () => connections++);
const transport = new HttpTransport();
let url: URL;

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/s`);
});
after(async () => {
  transport.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function open(h: Handler, idleMs = 5000): Promise<ConnectStream> {
  handler = h;
  const res = await transport.request({ method: 'POST', url, headers: {}, timeoutMs: 5000 });
  return new ConnectStream(res, idleMs, 1024 * 1024);
}

async function readAll(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const m of stream) out.push(m);
  return out;
}

const END = encodeJsonEnvelope({}, ENVELOPE_END_STREAM);

test('messages arrive in order across chunk boundaries, and the end-of-stream message ends them', async () => {
  const bytes = Buffer.concat([encodeJsonEnvelope({ n: 1 }), encodeJsonEnvelope({ n: 2 }), END]);
  const stream = await open((res) => {
    // Split inside the first header and inside the second payload.
    res.write(bytes.subarray(0, 3));
    setTimeout(() => res.write(bytes.subarray(3, 20)), 5);
    setTimeout(() => res.end(bytes.subarray(20)), 10);
  });
  assert.deepEqual(await readAll(stream), [{ n: 1 }, { n: 2 }]);
});

test('an end-of-stream message with an error throws it after the messages before it', async () => {
  const stream = await open((res) =>
    res.end(
      Buffer.concat([
        encodeJsonEnvelope({ n: 1 }),
        encodeJsonEnvelope({ error: { code: 'not_found', message: 'no such process' } }, ENVELOPE_END_STREAM),
      ]),
    ),
  );
  const seen: unknown[] = [];
  await assert.rejects(
    async () => {
      for await (const m of stream) seen.push(m);
    },
    (e: unknown) => isRpcError(e) && e.code === 'not_found' && /no such process/.test(e.message),
  );
  assert.deepEqual(seen, [{ n: 1 }]);
});

test('a response that ends without the end-of-stream message is a cut stream', async () => {
  const stream = await open((res) => res.end(encodeJsonEnvelope({ n: 1 })));
  await assert.rejects(readAll(stream), (e: unknown) => isRpcError(e) && e.code === 'unavailable');
});

test('a response that ends inside an envelope is malformed', async () => {
  const stream = await open((res) => res.end(encodeJsonEnvelope({ n: 1 }).subarray(0, 8)));
  await assert.rejects(readAll(stream), /ended inside an envelope/);
});

test('malformed JSON in a message is an invalid_argument error', async () => {
  const bad = Buffer.from([0, 0, 0, 0, 3, 0x7b, 0x7b, 0x7b]);
  const stream = await open((res) => res.end(bad));
  await assert.rejects(readAll(stream), (e: unknown) => isRpcError(e) && e.code === 'invalid_argument');
});

test('a read that waits past the idle deadline fails; a slow reader does not', async () => {
  let silent: ServerResponse | undefined;
  const stalled = await open((res) => {
    silent = res;
    res.write(encodeJsonEnvelope({ n: 1 }));
  }, 150);
  assert.deepEqual(await stalled.next(), { value: { n: 1 }, done: false });
  await assert.rejects(stalled.next(), StreamIdleError);
  silent?.destroy();

  const slowRead = await open((res) => res.end(Buffer.concat([encodeJsonEnvelope({ n: 1 }), END])), 150);
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.deepEqual(await readAll(slowRead), [{ n: 1 }]);
});

test('a reader that does not read holds the server back, and then gets every message', async () => {
  const count = 600;
  const payload = 'x'.repeat(60 * 1024);
  let written = 0;
  const stream = await open((res) => {
    let i = 0;
    const pump = () => {
      while (i < count) {
        written++;
        if (!res.write(encodeJsonEnvelope({ i: i++, payload }))) {
          res.once('drain', pump);
          return;
        }
      }
      res.end(END);
    };
    pump();
  });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  // Socket buffers hold a few megabytes (about 90 messages here); unread, the rest must wait.
  assert.ok(written <= count / 2, `the server wrote ${written} messages of 60 KB while nobody read`);
  const got = await readAll(stream);
  assert.deepEqual(
    got.map((m) => (m as { i: number }).i),
    Array.from({ length: count }, (_, i) => i),
  );
});

test('return() ends a waiting read and drops the call; a complete stream keeps its connection', async () => {
  let closed: Promise<void> | undefined;
  const stream = await open((res) => {
    closed = new Promise((resolve) => res.once('close', () => resolve()));
    res.write(encodeJsonEnvelope({ n: 1 }));
  });
  await stream.next();
  const waiting = stream.next();
  await stream.return();
  assert.deepEqual(await waiting, { value: undefined, done: true });
  await closed;

  const before = connections;
  for (let i = 0; i < 3; i++) {
    const s = await open((res) => res.end(Buffer.concat([encodeJsonEnvelope({ i }), END])));
    assert.deepEqual(await readAll(s), [{ i }]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.ok(connections - before <= 1, `${connections - before} connections for 3 sequential streams`);
});
