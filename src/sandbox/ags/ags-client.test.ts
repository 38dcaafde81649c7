import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type AgsCallError, AgsClient, agsSettingsFromEnv } from './ags-client.ts';

const CREDS = { TENCENTCLOUD_SECRET_ID: 'AKIDx', TENCENTCLOUD_SECRET_KEY: 'y' };

describe('AGS settings from the environment', () => {
  it('names the missing credentials and region', () => {
    assert.throws(
      () => agsSettingsFromEnv({ AGS_REGION: 'ap-guangzhou' }),
      /TENCENTCLOUD_SECRET_ID and TENCENTCLOUD_SECRET_KEY/,
    );
    assert.throws(() => agsSettingsFromEnv({ ...CREDS }), /AGS_REGION or pass --region/);
  });

  it('refuses an E2B_DOMAIN of another region before any call', () => {
    const env = { ...CREDS, AGS_REGION: 'ap-guangzhou', E2B_DOMAIN: 'ap-singapore.tencentags.com' };
    assert.throws(
      () => agsSettingsFromEnv(env),
      /region mismatch: E2B_DOMAIN ap-singapore.tencentags.com .* ap-guangzhou/,
    );
    assert.equal(
      agsSettingsFromEnv(env, 'ap-singapore').region,
      'ap-singapore',
      '--region wins over AGS_REGION',
    );
    assert.equal(
      agsSettingsFromEnv({ ...env, AGS_REGION: 'ap-singapore' }).endpoint,
      'https://ags.tencentcloudapi.com',
    );
  });
});

/**
 * The official SDK's client against a server that answers as Tencent Cloud does when throttling
 * (RequestLimitExceeded, HTTP 200) or failing (HTTP 502): retried, then a clear error.
 */
describe('AGS client retries', () => {
  const answers: ((res: http.ServerResponse) => void)[] = [];
  let calls = 0;
  let server: http.Server;
  let url: string;
  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls++;
        (answers.shift() ?? ((r) => r.writeHead(502).end()))(res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));
  const client = () =>
    new AgsClient({ secretId: 'AKIDx', secretKey: 'y', region: 'ap-guangzhou', endpoint: url }, 2);
  const json = (body: unknown) => (res: http.ServerResponse) =>
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

  it('retries a throttled call', async () => {
    calls = 0;
    answers.push(
      json({ Response: { Error: { Code: 'RequestLimitExceeded', Message: 'slow down' }, RequestId: 'r1' } }),
      json({ Response: { TotalCount: 0, SandboxToolSet: [], RequestId: 'r2' } }),
    );
    const r = await client().call<{ RequestId: string }>('DescribeSandboxToolList', {});
    assert.equal(r.RequestId, 'r2');
    assert.equal(calls, 2);
  });

  it('gives up on 5xx after its retries, and does not retry a parameter error', async () => {
    calls = 0;
    await assert.rejects(client().call('DescribeSandboxToolList', {}), /HTTP 502/);
    assert.equal(calls, 3);
    calls = 0;
    answers.push(
      json({ Response: { Error: { Code: 'InvalidParameterValue', Message: 'bad' }, RequestId: 'r3' } }),
    );
    const e = (await client()
      .call('CreateSandboxTool', {})
      .catch((x) => x)) as AgsCallError;
    assert.equal(e.code, 'InvalidParameterValue');
    assert.match(e.message, /AGS CreateSandboxTool failed: InvalidParameterValue: bad \(RequestId r3\)/);
    assert.equal(calls, 1);
  });
});
