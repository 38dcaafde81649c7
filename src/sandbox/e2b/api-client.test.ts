import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isSandboxError } from '../../errors.ts';
import { E2BApiClient } from './api-client.ts';
import { HttpTransport } from './http-transport.ts';

/** A scripted lifecycle API: each test says what the next answer is, and sees what was sent. */
let answer: { status: number; body?: unknown; headers?: Record<string, string>; hang?: boolean };
let seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    if (answer.hang) return;
    res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
    res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
});

describe('E2B lifecycle API client', () => {
  const transport = new HttpTransport();
  let api: E2BApiClient;
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    api = new E2BApiClient({
      apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      apiKey: 'ark_0123456789',
      domain: 'ap-shanghai.tencentags.com',
      requestTimeoutMs: 1000,
      transport,
    });
  });
  after(() => {
    transport.close();
    server.closeAllConnections();
    server.close();
  });

  const create = () =>
    api.create(
      {
        templateID: 'aiohttp-tool',
        timeout: 60,
        metadata: { 'sandgym.run': 'r' },
        envVars: {},
        allow_internet_access: false,
        secure: true,
      },
      { image: 'namanjain12/aiohttp_final:1', timeoutMs: 1000 },
    );

  it('sends the key as given (no format check) and the NewSandbox body', async () => {
    seen = [];
    answer = { status: 201, body: { sandboxID: 'abc', templateID: 'aiohttp-tool', envdVersion: '0.5.7' } };
    assert.equal((await create()).sandboxID, 'abc');
    assert.equal(seen[0]!.headers['x-api-key'], 'ark_0123456789');
    assert.equal(seen[0]!.url, '/sandboxes');
    assert.deepEqual(JSON.parse(seen[0]!.body).templateID, 'aiohttp-tool');
  });

  for (const status of [401, 403]) {
    it(`${status}: points at the key and, for AGS, its region`, async () => {
      answer = { status, body: { code: status, message: 'Invalid API key' } };
      await assert.rejects(create(), (e: unknown) => {
        assert.ok(isSandboxError(e));
        assert.match(e.message, /Invalid API key/);
        assert.match(
          e.message,
          /check E2B_API_KEY; for AGS, the key must belong to the region in E2B_DOMAIN/,
        );
        assert.match(e.message, /ap-shanghai\.tencentags\.com/);
        assert.equal(e.isRetryable, false);
        return true;
      });
    });
  }

  it('404 on create: the template (and image) do not exist there', async () => {
    answer = { status: 404, body: { code: 404, message: "template 'aiohttp-tool' not found" } };
    await assert.rejects(create(), (e: unknown) => {
      assert.ok(isSandboxError(e));
      assert.match(e.message, /template "aiohttp-tool" \(image "namanjain12\/aiohttp_final:1"\)/);
      assert.match(e.message, /template_map/);
      return true;
    });
  });

  it('404 on a sandbox: it expired or was killed; kill of a gone sandbox is false', async () => {
    answer = { status: 404, body: { code: 404, message: 'sandbox not found' } };
    await assert.rejects(api.fork('abc', 1, 10), (e: unknown) => {
      assert.ok(isSandboxError(e));
      assert.equal(e.sandboxId, 'abc');
      assert.match(e.message, /expired .* or was killed, or this server does not support fork sandbox/);
      return true;
    });
    assert.equal(await api.kill('abc'), false);
  });

  it('405 or 501: the server does not support the call', async () => {
    answer = { status: 501, body: { code: 501, message: 'snapshots are not implemented' } };
    await assert.rejects(
      api.snapshot('abc', 'name'),
      (e: unknown) => isSandboxError(e) && /snapshot sandbox is not supported by this server/.test(e.message),
    );
  });

  it('429: quota, with the wait the server asks for (retryable)', async () => {
    answer = { status: 429, body: { code: 429, message: 'rate limited' }, headers: { 'Retry-After': '3' } };
    await assert.rejects(create(), (e: unknown) => {
      assert.ok(isSandboxError(e));
      assert.match(e.message, /quota exceeded.*wait 3 s/);
      assert.equal(e.isRetryable, true);
      return true;
    });
  });

  it('5xx is retryable; a non-JSON error body is quoted', async () => {
    answer = { status: 502, body: undefined };
    await assert.rejects(
      create(),
      (e: unknown) => isSandboxError(e) && e.isRetryable && /HTTP 502/.test(e.message),
    );
  });

  it('a server that never answers fails at the request deadline', async () => {
    answer = { status: 200, hang: true };
    const t0 = Date.now();
    await assert.rejects(
      api.list(),
      (e: unknown) => isSandboxError(e) && /no response within 1000 ms/.test(e.message),
    );
    assert.ok(Date.now() - t0 < 5000);
  });
});
