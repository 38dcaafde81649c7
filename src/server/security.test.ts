import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createGzip, gzipSync } from 'node:zlib';
import {
  ENVELOPE_END_STREAM,
  EnvelopeDecoder,
  encodeEnvelope,
  encodeJsonEnvelope,
} from '../sandbox/e2b/index.ts';
import { ImageStore, resolveHome } from '../sandbox/images/index.ts';
import { localTestSkipReason } from '../sandbox/local/test-support.ts';
import { hashApiKey } from './api-keys.ts';
import { fileUrlSignature } from './signed-url.ts';
import {
  type CreatedForTest,
  createSandbox,
  envdHeaders,
  rawRequest,
  runInSandbox,
} from './testing/http-client.ts';
import { startTestServer, type TestServer } from './testing/test-server.ts';

const KEY_A = 'sgk_security-test-key-a';
const KEY_B = 'sgk_security-test-key-b';
const MAX_UPLOAD = 1024 * 1024;
const skip = await localTestSkipReason();

describe('sandgym serve security', { skip: skip ?? false, timeout: 300_000 }, () => {
  let t: TestServer;
  let a: CreatedForTest;
  let b: CreatedForTest;
  const json = { 'Content-Type': 'application/json' };

  before(async () => {
    t = await startTestServer({
      keys: [KEY_A, KEY_B],
      maxUploadBytes: MAX_UPLOAD,
      maxJsonBytes: 64 * 1024,
      headersTimeoutMs: 500,
      requestTimeoutMs: 3000,
    });
    a = await createSandbox(t.url, KEY_A);
    b = await createSandbox(t.url, KEY_B);
    await runInSandbox(t.url, a, 'echo original > /tmp/marker');
  });
  after(async () => {
    await t?.close();
    // The snapshot test leaves its image in key A's namespace of the local image store.
    await new ImageStore(resolveHome()).remove(
      `sandgym-serve/${hashApiKey(KEY_A).slice(0, 16)}/private:latest`,
    );
  });

  async function markerOfA(): Promise<string> {
    return runInSandbox(t.url, a, 'cat /tmp/marker');
  }

  describe('API keys', () => {
    for (const [name, headers] of [
      ['no key', {}],
      ['a wrong key', { 'X-API-Key': 'sgk_not-a-key' }],
    ] as const) {
      it(`${name}: 401 on every lifecycle call, nothing created, listed or killed`, async () => {
        const before = t.server.sandboxCount;
        const calls = [
          rawRequest(`${t.url}/sandboxes`, {
            method: 'POST',
            headers: { ...headers, ...json },
            body: '{"templateID":"sandgym/base"}',
          }),
          rawRequest(`${t.url}/v2/sandboxes`, { headers }),
          rawRequest(`${t.url}/sandboxes/${a.sandboxID}`, { method: 'DELETE', headers }),
          rawRequest(`${t.url}/sandboxes/${a.sandboxID}/timeout`, {
            method: 'POST',
            headers: { ...headers, ...json },
            body: '{"timeout":0}',
          }),
        ];
        for (const r of await Promise.all(calls)) {
          assert.equal(r.status, 401);
          assert.equal(r.json().code, 401);
          assert.match(String(r.json().message), /API key|X-API-Key/);
        }
        assert.equal(t.server.sandboxCount, before);
        assert.equal(await markerOfA(), 'original\n');
      });
    }

    it("another key's sandbox is not found (404) for every call, and stays untouched", async () => {
      const h = { 'X-API-Key': KEY_B, ...json };
      const id = a.sandboxID;
      for (const [method, path, body] of [
        ['GET', `/sandboxes/${id}`, undefined],
        ['DELETE', `/sandboxes/${id}`, undefined],
        ['POST', `/sandboxes/${id}/timeout`, '{"timeout":0}'],
        ['POST', `/sandboxes/${id}/connect`, '{"timeout":10}'],
        ['POST', `/sandboxes/${id}/fork`, '{"count":1}'],
        ['POST', `/sandboxes/${id}/snapshots`, '{"name":"stolen"}'],
      ] as const) {
        const r = await rawRequest(`${t.url}${path}`, { method, headers: h, ...(body && { body }) });
        assert.equal(r.status, 404, `${method} ${path}`);
        assert.match(String(r.json().message), /not found/);
      }
      const listed = (await rawRequest(`${t.url}/sandboxes`, { headers: h })).json<
        {
          sandboxID: string;
        }[]
      >();
      assert.deepEqual(
        listed.map((s) => s.sandboxID),
        [b.sandboxID],
      );
      assert.equal(await markerOfA(), 'original\n', "A's sandbox still runs, unchanged");
    });

    it("another key's snapshots cannot be started", async () => {
      const snap = await rawRequest(`${t.url}/sandboxes/${a.sandboxID}/snapshots`, {
        method: 'POST',
        headers: { 'X-API-Key': KEY_A, ...json },
        body: '{"name":"private"}',
      });
      assert.equal(snap.status, 201);
      const snapshotID = String(snap.json().snapshotID);
      const r = await rawRequest(`${t.url}/sandboxes`, {
        method: 'POST',
        headers: { 'X-API-Key': KEY_B, ...json },
        body: JSON.stringify({ templateID: snapshotID }),
      });
      assert.equal(r.status, 404);
      const listed = (key: string) =>
        rawRequest(`${t.url}/snapshots`, { headers: { 'X-API-Key': key } }).then((x) =>
          x.json<{ snapshotID: string }[]>().map((e) => e.snapshotID),
        );
      assert.ok((await listed(KEY_A)).includes(snapshotID));
      assert.ok(!(await listed(KEY_B)).includes(snapshotID), "B does not see A's snapshot");
      const del = await rawRequest(`${t.url}/templates/${encodeURIComponent(snapshotID)}`, {
        method: 'DELETE',
        headers: { 'X-API-Key': KEY_B },
      });
      assert.equal(del.status, 404, "B cannot delete A's snapshot");
      assert.ok((await listed(KEY_A)).includes(snapshotID));
      const own = await createSandbox(t.url, KEY_A, { templateID: snapshotID });
      assert.equal(await runInSandbox(t.url, own, 'cat /tmp/marker'), 'original\n');
      await rawRequest(`${t.url}/sandboxes/${own.sandboxID}`, {
        method: 'DELETE',
        headers: { 'X-API-Key': KEY_A },
      });
    });
  });

  describe('envd access tokens', () => {
    it("no token, a wrong token, or another sandbox's token: 401, nothing written", async () => {
      for (const token of ['', 'wrong', b.envdAccessToken]) {
        const r = await rawRequest(`${t.url}/files?path=/tmp/marker`, {
          method: 'POST',
          headers: { ...envdHeaders(a, token), 'Content-Type': 'application/octet-stream' },
          body: 'overwritten',
        });
        assert.equal(r.status, 401, `token "${token}"`);
        const start = await rawRequest(`${t.url}/process.Process/Start`, {
          method: 'POST',
          headers: { ...envdHeaders(a, token), 'Content-Type': 'application/connect+json' },
          body: encodeJsonEnvelope({ process: { cmd: '/bin/sh', args: ['-c', 'echo pwned > /tmp/marker'] } }),
        });
        assert.equal(start.status, 401);
      }
      assert.equal(await markerOfA(), 'original\n');
    });

    it("signed /files URLs: another sandbox's token, another operation or path, expired: 401, nothing written", async () => {
      const signed = (
        token: string,
        q: Record<string, string>,
        op: 'read' | 'write',
        expiration?: number,
      ) => {
        const u = new URL(`${t.url}/files`);
        for (const [k, v] of Object.entries(q)) u.searchParams.set(k, v);
        u.searchParams.set(
          'signature',
          fileUrlSignature({
            path: q.path ?? '',
            operation: op,
            username: '',
            accessToken: token,
            expiration,
          }),
        );
        if (expiration !== undefined) u.searchParams.set('signature_expiration', String(expiration));
        return u.toString();
      };
      const post = (url: string, headers: Record<string, string> = {}) =>
        rawRequest(url, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/octet-stream' },
          body: 'overwritten',
        });
      // Routed to A by its header, but signed with B's token.
      const crossed = await post(signed(b.envdAccessToken, { path: '/tmp/marker' }, 'write'), {
        'E2b-Sandbox-Id': a.sandboxID,
      });
      assert.equal(crossed.status, 401);
      // A read signature used to write; a signature for another path.
      assert.equal((await post(signed(a.envdAccessToken, { path: '/tmp/marker' }, 'read'))).status, 401);
      const other = new URL(signed(a.envdAccessToken, { path: '/tmp/other' }, 'write'));
      other.searchParams.set('path', '/tmp/marker');
      assert.equal((await post(other.toString())).status, 401);
      const expired = Math.floor(Date.now() / 1000) - 5;
      const late = await post(signed(a.envdAccessToken, { path: '/tmp/marker' }, 'write', expired));
      assert.equal(late.status, 401);
      assert.match(String(late.json().message), /expired/);
      assert.equal(await markerOfA(), 'original\n');
      // The right signature reads A's file, with no token and no sandbox header.
      const read = await rawRequest(signed(a.envdAccessToken, { path: '/tmp/marker' }, 'read'), {});
      assert.equal(read.body.toString(), 'original\n');
    });

    it('an unknown sandbox answers 502 (gone), as E2B does', async () => {
      const r = await rawRequest(`${t.url}/health`, {
        headers: envdHeaders({ ...a, sandboxID: 'deadbeef0000' }),
      });
      assert.equal(r.status, 502);
      assert.match(String(r.json().message), /not found/);
    });

    it("a sandbox's other ports (getHost traffic) need its token too, and reach only its own loopback", async () => {
      for (const token of ['', 'wrong', b.envdAccessToken]) {
        const r = await rawRequest(`${t.url}/`, {
          headers: { ...envdHeaders(a, token), 'E2b-Sandbox-Port': '8080' },
        });
        assert.equal(r.status, 401, `token "${token}"`);
      }
      // The server's own port, seen from inside the sandbox, is the sandbox's loopback: nothing listens.
      const own = new URL(t.url).port;
      const r = await rawRequest(`${t.url}/health`, {
        headers: { ...envdHeaders(a), 'E2b-Sandbox-Port': own },
      });
      assert.equal(r.status, 502);
      assert.match(String(r.json().message), /nothing answers/);
    });

    it('the routing header must be well formed', async () => {
      const r = await rawRequest(`${t.url}/health`, {
        headers: { 'E2b-Sandbox-Id': '../../etc', 'X-Access-Token': 'x' },
      });
      assert.equal(r.status, 400);
    });
  });

  describe('paths stay inside the sandbox', () => {
    const secretDir = join(tmpdir(), `sandgym-secret-${randomBytes(6).toString('hex')}`);
    const secret = join(secretDir, 'secret.txt');
    before(async () => {
      await rm(secretDir, { recursive: true, force: true });
      await import('node:fs/promises').then((fs) => fs.mkdir(secretDir));
      await writeFile(secret, 'HOST SECRET');
      await runInSandbox(t.url, a, 'ln -s / /tmp/root-link');
    });
    after(() => rm(secretDir, { recursive: true, force: true }));

    it('reads through .., absolute paths and planted symlinks never see host files', async () => {
      for (const path of [secret, `../../../../..${secret}`, `/tmp/root-link${secret}`, `~/../..${secret}`]) {
        const r = await rawRequest(`${t.url}/files?path=${encodeURIComponent(path)}`, {
          headers: envdHeaders(a),
        });
        assert.ok(!r.body.toString().includes('HOST SECRET'), `read the host's file through ${path}`);
        assert.equal(r.status, 404, path);
      }
      const listing = await rawRequest(`${t.url}/filesystem.Filesystem/ListDir`, {
        method: 'POST',
        headers: { ...envdHeaders(a), ...json },
        body: JSON.stringify({ path: `../../../..${secretDir}`, depth: 1 }),
      });
      assert.equal(listing.status, 404);
    });

    it('writes through .. land inside the sandbox, never on the host', async () => {
      const target = join(tmpdir(), `sandgym-escape-${randomBytes(6).toString('hex')}`);
      const r = await rawRequest(`${t.url}/files?path=${encodeURIComponent(`../../../../..${target}`)}`, {
        method: 'POST',
        headers: { ...envdHeaders(a), 'Content-Type': 'application/octet-stream' },
        body: 'escaped?',
      });
      assert.equal(r.status, 200);
      await assert.rejects(stat(target), 'no file on the host');
      assert.equal(await runInSandbox(t.url, a, `cat ${target}`), 'escaped?');
    });
  });

  describe('request size limits', () => {
    const upload = (headers: Record<string, string>, body: Buffer) =>
      rawRequest(`${t.url}/files?path=/tmp/big.bin`, {
        method: 'POST',
        headers: { ...envdHeaders(a), 'Content-Type': 'application/octet-stream', ...headers },
        body,
      });

    it('refuses an upload over the limit (413) and leaves no partial file', async () => {
      const r = await upload({}, randomBytes(2 * MAX_UPLOAD));
      assert.equal(r.status, 413);
      assert.equal(
        await runInSandbox(t.url, a, 'test -e /tmp/big.bin && echo present || echo absent'),
        'absent\n',
      );
    });

    it('counts decoded bytes: a small gzip body that inflates past the limit is refused', async () => {
      const bomb = gzipSync(Buffer.alloc(8 * MAX_UPLOAD));
      assert.ok(bomb.length < MAX_UPLOAD / 10);
      const r = await upload({ 'Content-Encoding': 'gzip' }, bomb);
      assert.equal(r.status, 413);
    });

    it('a gzip-bombed multipart upload inflating past the limit: 413, no partial file', async () => {
      const { contentType, gzipped } = await gzippedMultipart('/tmp/bomb.bin', 8 * MAX_UPLOAD);
      assert.ok(gzipped.length < MAX_UPLOAD / 10);
      const r = await rawRequest(`${t.url}/files`, {
        method: 'POST',
        headers: { ...envdHeaders(a), 'Content-Type': contentType, 'Content-Encoding': 'gzip' },
        body: gzipped,
      });
      assert.equal(r.status, 413);
      assert.equal(
        await runInSandbox(t.url, a, 'test -e /tmp/bomb.bin && echo present || echo absent'),
        'absent\n',
      );
    });

    it('refuses multipart and JSON bodies over their limits', async () => {
      const form = new FormData();
      form.append('file', new Blob([randomBytes(2 * MAX_UPLOAD)]), '/tmp/big.bin');
      const multipart = await fetch(`${t.url}/files`, {
        method: 'POST',
        headers: envdHeaders(a),
        body: form,
      });
      assert.equal(multipart.status, 413);
      const big = await rawRequest(`${t.url}/sandboxes`, {
        method: 'POST',
        headers: { 'X-API-Key': KEY_A, ...json },
        body: JSON.stringify({ templateID: 'sandgym/base', metadata: { pad: 'x'.repeat(128 * 1024) } }),
      });
      assert.equal(big.status, 413);
    });
  });

  describe('malformed requests get clear 4xx answers', () => {
    const h = { 'X-API-Key': KEY_A, ...json };

    it('malformed or non-object JSON in the lifecycle API: 400 naming the problem', async () => {
      for (const [body, pattern] of [
        ['{"templateID": ', /malformed JSON/],
        ['[1,2]', /must be an object/],
        ['{"templateID": 7}', /templateID/],
        ['{"templateID": "sandgym/base", "timeout": -5}', /timeout/],
        [
          '{"templateID": "sandgym/base", "metadata": {"sandgym.limit.memory-bytes": "lots"}}',
          /memory-bytes/,
        ],
      ] as const) {
        const r = await rawRequest(`${t.url}/sandboxes`, { method: 'POST', headers: h, body });
        assert.equal(r.status, 400, body);
        assert.match(String(r.json().message), pattern);
      }
    });

    it('malformed JSON in a unary RPC: 400 invalid_argument', async () => {
      const r = await rawRequest(`${t.url}/filesystem.Filesystem/Stat`, {
        method: 'POST',
        headers: { ...envdHeaders(a), ...json },
        body: '{"path": ',
      });
      assert.equal(r.status, 400);
      assert.equal(r.json().code, 'invalid_argument');
    });

    it('malformed Connect envelopes: an error with a message, never a hang or a 500', async () => {
      const good = encodeJsonEnvelope({ process: { cmd: 'true' } });
      // A streaming call's error is its end-of-stream message (Connect); a codec we do not speak is a 415.
      const cases: [string, Buffer, string, string | 415][] = [
        [
          'a length beyond the body',
          Buffer.concat([Buffer.from([0, 0, 0, 1, 0]), Buffer.from('{}')]),
          'connect+json',
          'invalid_argument',
        ],
        ['the compressed flag', encodeEnvelope(Buffer.from('{}'), 1), 'connect+json', 'invalid_argument'],
        ['unknown flags', encodeEnvelope(Buffer.from('{}'), 0x80), 'connect+json', 'invalid_argument'],
        ['two messages', Buffer.concat([good, good]), 'connect+json', 'invalid_argument'],
        ['bad JSON inside', encodeEnvelope(Buffer.from('{nope')), 'connect+json', 'invalid_argument'],
        [
          'a huge declared length',
          Buffer.from([0, 0xff, 0xff, 0xff, 0xff]),
          'connect+json',
          'resource_exhausted',
        ],
        ['the proto codec', good, 'connect+proto', 415],
      ];
      for (const [name, body, codec, expected] of cases) {
        const r = await rawRequest(`${t.url}/process.Process/Start`, {
          method: 'POST',
          headers: { ...envdHeaders(a), 'Content-Type': `application/${codec}` },
          body,
        });
        if (expected === 415) {
          assert.equal(r.status, 415, name);
          assert.ok(typeof r.json().message === 'string' && String(r.json().message).length > 0, name);
          continue;
        }
        assert.equal(r.status, 200, name);
        const envelopes = new EnvelopeDecoder(1024 * 1024).push(r.body);
        const last = envelopes.at(-1);
        assert.equal(last?.flags, ENVELOPE_END_STREAM, name);
        const { error } = JSON.parse(last.data.toString()) as { error: { code: string; message: string } };
        assert.equal(error.code, expected, name);
        assert.ok(error.message.length > 0, name);
      }
    });
  });

  describe('slow and idle connections', () => {
    for (const [name, sent] of [
      ['a connection that sends nothing', ''],
      ['a connection that never finishes its headers', 'POST /sandboxes HTTP/1.1\r\nHost: x\r\n'],
    ] as const) {
      it(`closes ${name} after the headers timeout`, async () => {
        const started = Date.now();
        const closed = await new Promise<number>((resolve, reject) => {
          const socket = connect(new URL(t.url).port ? Number(new URL(t.url).port) : 80, '127.0.0.1', () => {
            if (sent) socket.write(sent);
          });
          socket.on('data', () => {});
          socket.on('error', () => {});
          socket.on('close', () => resolve(Date.now() - started));
          setTimeout(() => reject(new Error('still open after 10 s')), 10_000).unref();
        });
        assert.ok(closed >= 400, `closed after ${closed} ms`);
      });
    }

    it('closes a request whose body never completes after the request timeout', async () => {
      const started = Date.now();
      const closed = await new Promise<number>((resolve, reject) => {
        const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => {
          socket.write(
            `POST /sandboxes HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY_A}\r\nContent-Type: application/json\r\n` +
              'Content-Length: 100\r\n\r\n{"templ',
          );
        });
        socket.on('data', () => {});
        socket.on('error', () => {});
        socket.on('close', () => resolve(Date.now() - started));
        setTimeout(() => reject(new Error('still open after 15 s')), 15_000).unref();
      });
      assert.ok(closed >= 2000, `closed after ${closed} ms`);
    });
  });
});

describe('sandgym serve upload memory', { skip: skip ?? false, timeout: 300_000 }, () => {
  let t: TestServer;
  let a: CreatedForTest;
  before(async () => {
    t = await startTestServer({ keys: [KEY_A] });
    a = await createSandbox(t.url, KEY_A);
  });
  after(() => t?.close());

  it('a gzip-bombed multipart upload (256 MiB from < 1 MiB) streams through: the server grows < 128 MiB', async () => {
    const inflated = 256 * 1024 * 1024;
    const { contentType, gzipped } = await gzippedMultipart('/dev/null', inflated);
    assert.ok(gzipped.length < 1024 * 1024);
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    try {
      const r = await rawRequest(`${t.url}/files`, {
        method: 'POST',
        headers: { ...envdHeaders(a), 'Content-Type': contentType, 'Content-Encoding': 'gzip' },
        body: gzipped,
      });
      assert.equal(r.status, 200, r.body.toString());
    } finally {
      clearInterval(sampler);
    }
    const grownMiB = (peak - before) / 2 ** 20;
    assert.ok(
      grownMiB < 128,
      `the server grew by ${grownMiB.toFixed(0)} MiB for a ${inflated >> 20} MiB part`,
    );
  });
});

/** A multipart/form-data body with one file part of `size` zero bytes, gzipped as it is made. */
async function gzippedMultipart(
  path: string,
  size: number,
): Promise<{ contentType: string; gzipped: Buffer }> {
  const boundary = `sandgym-${randomBytes(8).toString('hex')}`;
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => gzip.once('end', r));
  const write = (b: Buffer | string) =>
    new Promise<void>((r) => (gzip.write(b) ? r() : gzip.once('drain', () => r())));
  await write(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const zeros = Buffer.alloc(1024 * 1024);
  for (let left = size; left > 0; left -= zeros.length)
    await write(zeros.subarray(0, Math.min(left, zeros.length)));
  gzip.end(`\r\n--${boundary}--\r\n`);
  await done;
  return { contentType: `multipart/form-data; boundary=${boundary}`, gzipped: Buffer.concat(chunks) };
}

describe('sandgym serve host-wide caps', { skip: skip ?? false, timeout: 300_000 }, () => {
  let t: TestServer;
  before(async () => {
    // As if the host's pid table held 2,048: no set of keys may hold more than half of it.
    t = await startTestServer({ keys: [KEY_A, KEY_B], hostCaps: { pids: 1024 } });
  });
  after(() => t?.close());

  it('keys together cannot take more than the host-wide process cap: 429 naming it, room back on kill', async () => {
    const pids512 = { metadata: { 'sandgym.limit.pids': '512' } };
    const a1 = await createSandbox(t.url, KEY_A, pids512);
    await createSandbox(t.url, KEY_B, pids512);
    for (const key of [KEY_A, KEY_B]) {
      const r = await rawRequest(`${t.url}/sandboxes`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ templateID: 'sandgym/base', metadata: { 'sandgym.limit.pids': '8' } }),
      });
      assert.equal(r.status, 429);
      assert.match(r.json<{ message: string }>().message, /host is full.*processes.*all keys together/);
      assert.ok(r.headers.get('retry-after'));
    }
    const killed = await rawRequest(`${t.url}/sandboxes/${a1.sandboxID}`, {
      method: 'DELETE',
      headers: { 'X-API-Key': KEY_A },
    });
    assert.equal(killed.status, 204);
    await createSandbox(t.url, KEY_B, { metadata: { 'sandgym.limit.pids': '8' } });
  });
});
