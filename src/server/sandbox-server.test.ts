import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { encodeJsonEnvelope } from '../sandbox/e2b/index.ts';
import type { LocalProvider } from '../sandbox/local/index.ts';
import { localTestSkipReason } from '../sandbox/local/test-support.ts';
import { createSandbox, envdHeaders, rawRequest, runInSandbox } from './testing/http-client.ts';
import { startTestServer, type TestServer } from './testing/test-server.ts';

const KEY = 'sgk_server-test-key';
const skip = await localTestSkipReason();
const h = { 'X-API-Key': KEY, 'Content-Type': 'application/json' };

async function waitFor(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('sandgym serve lifecycle', { skip: skip ?? false, timeout: 300_000 }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ keys: [KEY], maxSandboxesPerKey: 2, createsPerSecondPerKey: 100 });
  });
  after(() => t?.close());

  it('answers /health without a key, and 404/405 for what it does not serve', async () => {
    assert.equal((await rawRequest(`${t.url}/health`, {})).status, 204);
    assert.equal((await rawRequest(`${t.url}/teams`, { headers: h })).status, 404);
    const r = await rawRequest(`${t.url}/sandboxes`, { method: 'DELETE', headers: h });
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'GET, POST');
  });

  it('holds a key to its concurrent quota with 429 and Retry-After, and frees a slot on kill', async () => {
    const one = await createSandbox(t.url, KEY);
    await createSandbox(t.url, KEY);
    const third = await rawRequest(`${t.url}/sandboxes`, {
      method: 'POST',
      headers: h,
      body: '{"templateID":"sandgym/base"}',
    });
    assert.equal(third.status, 429);
    assert.match(String(third.json().message), /quota of 2/);
    assert.ok(Number(third.headers.get('retry-after')) >= 1);
    assert.equal(
      (await rawRequest(`${t.url}/sandboxes/${one.sandboxID}`, { method: 'DELETE', headers: h })).status,
      204,
    );
    assert.ok((await createSandbox(t.url, KEY)).sandboxID, 'a killed sandbox frees its slot');
    const listed = (await rawRequest(`${t.url}/sandboxes`, { headers: h })).json<
      {
        sandboxID: string;
      }[]
    >();
    assert.equal(listed.length, 2);
    for (const s of listed)
      await rawRequest(`${t.url}/sandboxes/${s.sandboxID}`, { method: 'DELETE', headers: h });
  });

  it('filters the list by metadata (URL-encoded as the SDK sends it) and pages /v2 with X-Next-Token', async () => {
    const x = await createSandbox(t.url, KEY, { metadata: { 'team/name': 'a b&c', other: '1' } });
    const y = await createSandbox(t.url, KEY, { metadata: { 'team/name': 'zzz' } });
    const filter = new URLSearchParams({
      [encodeURIComponent('team/name')]: encodeURIComponent('a b&c'),
    }).toString();
    const listed = await rawRequest(`${t.url}/v2/sandboxes?metadata=${encodeURIComponent(filter)}`, {
      headers: h,
    });
    assert.deepEqual(
      listed.json<{ sandboxID: string }[]>().map((s) => s.sandboxID),
      [x.sandboxID],
    );
    const page1 = await rawRequest(`${t.url}/v2/sandboxes?limit=1`, { headers: h });
    const token = page1.headers.get('x-next-token');
    assert.ok(token);
    const page2 = await rawRequest(`${t.url}/v2/sandboxes?limit=1&nextToken=${token}`, { headers: h });
    assert.equal(page2.headers.get('x-next-token'), null);
    const ids = [...page1.json<{ sandboxID: string }[]>(), ...page2.json<{ sandboxID: string }[]>()];
    assert.deepEqual(new Set(ids.map((s) => s.sandboxID)), new Set([x.sandboxID, y.sandboxID]));
    for (const s of [x, y])
      await rawRequest(`${t.url}/sandboxes/${s.sandboxID}`, { method: 'DELETE', headers: h });
  });

  it('moves files through /files: gzip both ways, multipart with paths, an empty file, a missing one', async () => {
    const s = await createSandbox(t.url, KEY);
    try {
      const text = 'héllo\n'.repeat(1000);
      const up = await rawRequest(`${t.url}/files?path=${encodeURIComponent('~/docs/a.txt')}`, {
        method: 'POST',
        headers: {
          ...envdHeaders(s),
          'Content-Type': 'application/octet-stream',
          'Content-Encoding': 'gzip',
        },
        body: gzipSync(text),
      });
      assert.deepEqual(up.json(), [{ path: '/root/docs/a.txt', name: 'a.txt', type: 'file' }]);
      const down = await new Promise<Buffer>((resolve, reject) => {
        http
          .get(
            `${t.url}/files?path=/root/docs/a.txt`,
            { headers: { ...envdHeaders(s), 'Accept-Encoding': 'gzip' } },
            (res) => {
              assert.equal(res.headers['content-encoding'], 'gzip');
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => resolve(Buffer.concat(chunks)));
            },
          )
          .on('error', reject);
      });
      assert.equal(gunzipSync(down).toString(), text);
      const form = new FormData();
      form.append('file', new Blob(['one']), '/tmp/m/one.txt');
      form.append('file', new Blob(['']), 'empty.txt');
      const multi = await fetch(`${t.url}/files`, { method: 'POST', headers: envdHeaders(s), body: form });
      assert.deepEqual(
        ((await multi.json()) as { path: string }[]).map((e) => e.path),
        ['/tmp/m/one.txt', '/root/empty.txt'],
      );
      const empty = await rawRequest(`${t.url}/files?path=/root/empty.txt`, { headers: envdHeaders(s) });
      assert.deepEqual([empty.status, empty.headers.get('content-length'), empty.body.length], [200, '0', 0]);
      const missing = await rawRequest(`${t.url}/files?path=/nope`, { headers: envdHeaders(s) });
      assert.deepEqual([missing.status, missing.json().message], [404, "path '/nope' does not exist"]);
      const dir = await rawRequest(`${t.url}/files?path=/tmp`, { headers: envdHeaders(s) });
      assert.equal(dir.status, 400);
    } finally {
      await rawRequest(`${t.url}/sandboxes/${s.sandboxID}`, { method: 'DELETE', headers: h });
    }
  });

  it('kills a sandbox at its timeout, and a later timeout call moves the end', async () => {
    const short = await createSandbox(t.url, KEY, { timeout: 1 });
    const moved = await createSandbox(t.url, KEY, { timeout: 1 });
    const set = await rawRequest(`${t.url}/sandboxes/${moved.sandboxID}/timeout`, {
      method: 'POST',
      headers: h,
      body: '{"timeout": 60}',
    });
    assert.equal(set.status, 204);
    const gone = await waitFor(async () => {
      return (await rawRequest(`${t.url}/sandboxes/${short.sandboxID}`, { headers: h })).status === 404;
    });
    assert.ok(gone, 'expired sandbox still answers');
    assert.equal((await rawRequest(`${t.url}/sandboxes/${moved.sandboxID}`, { headers: h })).status, 200);
    assert.equal(await runInSandbox(t.url, moved, 'echo alive'), 'alive\n');
    const local = t.provider as LocalProvider;
    // It leaves the registry first (no request can reach it), then its close runs.
    assert.ok(
      await waitFor(async () => !local.sandboxes.some((s) => s.id === short.sandboxID)),
      'the expired sandbox was closed',
    );
    await rawRequest(`${t.url}/sandboxes/${moved.sandboxID}`, { method: 'DELETE', headers: h });
  });
});

describe('sandgym serve shutdown', { skip: skip ?? false, timeout: 120_000 }, () => {
  it('closes every sandbox it holds and ends open process streams', async () => {
    const t = await startTestServer({ keys: [KEY] });
    try {
      const a = await createSandbox(t.url, KEY);
      await createSandbox(t.url, KEY);
      const started = await fetch(`${t.url}/process.Process/Start`, {
        method: 'POST',
        headers: { ...envdHeaders(a), 'Content-Type': 'application/connect+json' },
        body: encodeJsonEnvelope({ process: { cmd: 'sleep', args: ['1000'] } }),
      });
      assert.equal(started.status, 200);
      const stream = started.arrayBuffer();
      const local = t.provider as LocalProvider;
      assert.equal(local.sandboxes.length, 2);
      await t.server.close();
      assert.equal(local.sandboxes.length, 0);
      assert.equal(t.server.sandboxCount, 0);
      const body = Buffer.from(await stream);
      assert.match(body.toString(), /"end"/, 'the stream reported the killed process');
    } finally {
      await t.close();
    }
  });
});

describe('sandgym serve create rate', { skip: skip ?? false, timeout: 120_000 }, () => {
  it('refuses creates beyond the per-second quota with 429 and Retry-After', async () => {
    const t = await startTestServer({ keys: [KEY], createsPerSecondPerKey: 1 });
    try {
      await createSandbox(t.url, KEY);
      const r = await rawRequest(`${t.url}/sandboxes`, {
        method: 'POST',
        headers: h,
        body: '{"templateID":"sandgym/base"}',
      });
      assert.equal(r.status, 429);
      assert.match(String(r.json().message), /1 per second/);
      assert.equal(r.headers.get('retry-after'), '1');
    } finally {
      await t.close();
    }
  });
});

describe('sandgym serve host routing', { skip: skip ?? false, timeout: 120_000 }, () => {
  it('routes <port>-<id>.<domain> hosts to the sandbox, and only under its domain', async () => {
    const t = await startTestServer({ keys: [KEY], domain: 'sandgym.test' });
    try {
      const s = await createSandbox(t.url, KEY, { envVars: { GREETING: 'hi' } });
      const get = (host: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = http.get(
            `${t.url}/envs`,
            { headers: { Host: host, 'X-Access-Token': s.envdAccessToken } },
            (res) => {
              let body = '';
              res.on('data', (c) => {
                body += c;
              });
              res.on('end', () => resolve({ status: res.statusCode!, body }));
            },
          );
          req.on('error', reject);
        });
      const routed = await get(`49983-${s.sandboxID}.sandgym.test`);
      assert.deepEqual([routed.status, JSON.parse(routed.body)], [200, { GREETING: 'hi' }]);
      const elsewhere = await get(`49983-${s.sandboxID}.other.test`);
      assert.equal(elsewhere.status, 401, 'not a sandbox host: a lifecycle call without a key');
      const created = await rawRequest(`${t.url}/sandboxes/${s.sandboxID}`, { headers: h });
      assert.equal(created.json().domain, 'sandgym.test', 'clients learn the domain of sandbox hosts');
    } finally {
      await t.close();
    }
  });
});
