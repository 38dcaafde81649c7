import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
// The official SDK's own TC3 signer, to build requests the SDK would never send (a body changed after
// signing, an old timestamp) and check the server refuses them.
import signModule from 'tencentcloud-sdk-nodejs-common/tencentcloud/common/sign.js';
import {
  type AgsApi,
  type AgsCallError,
  AgsClient,
  clientTokenFor,
  syncTools,
  TAG_IMAGE,
  TAG_OWNER,
  toolNameFor,
} from '../../sandbox/ags/index.ts';
import type { SandboxProvider } from '../../sandbox/index.ts';
import { KeyStore } from '../api-keys.ts';
import { SandboxServer } from '../sandbox-server.ts';
import { modelCheckingApi, modelErrors } from '../testing/ags-models.ts';
import { AgsKeyStore } from './ags-keys.ts';
import { AGS_VERSION } from './control-plane.ts';
import { ToolStore } from './tool-store.ts';

const Sign = (signModule as unknown as { default: { sign3(o: Record<string, unknown>): string } }).default;
const ID = 'AKIDsandgymTestKey000000000000000000';
const SECRET = 'sandgymTestSecret000000000000000000';
const REGION = 'ap-guangzhou';
/**
 * The control plane's calls here start no sandbox (ags-workflow.test.ts does, on the local provider), so
 * this suite runs on any host: a provider that says so if it is ever asked for one.
 */
const NO_SANDBOXES: SandboxProvider = {
  name: 'none',
  create: () => Promise.reject(new Error('this test starts no sandbox')),
  hasImage: async () => false,
  gc: () => Promise.reject(new Error('this test collects nothing')),
  close: async () => {},
};

const client = (url: string, o: { id?: string; secret?: string; region?: string } = {}) =>
  new AgsClient(
    { secretId: o.id ?? ID, secretKey: o.secret ?? SECRET, region: o.region ?? REGION, endpoint: url },
    0,
  );

async function callError(p: Promise<unknown>): Promise<AgsCallError> {
  try {
    await p;
  } catch (e) {
    return e as AgsCallError;
  }
  assert.fail('the call succeeded');
}

/** POST / signed by the SDK's signer over `signedBody`, sending `sentBody`. */
async function rawCall(url: string, o: { signedBody: string; sentBody?: string; timestamp?: number }) {
  const timestamp = o.timestamp ?? Math.floor(Date.now() / 1000);
  const headers = { 'Content-Type': 'application/json' };
  const authorization = Sign.sign3({
    method: 'POST',
    url: `${url}/`,
    payload: Buffer.from(o.signedBody),
    timestamp,
    service: 'ags',
    secretId: ID,
    secretKey: SECRET,
    headers,
  });
  const r = await fetch(`${url}/`, {
    method: 'POST',
    headers: {
      ...headers,
      Authorization: authorization,
      'X-TC-Action': 'DescribeSandboxToolList',
      'X-TC-Version': AGS_VERSION,
      'X-TC-Region': REGION,
      'X-TC-Timestamp': String(timestamp),
    },
    body: o.sentBody ?? o.signedBody,
  });
  return (await r.json()) as { Response: { Error?: { Code: string; Message: string }; RequestId: string } };
}

describe('sandgym serve: AGS control plane, with the official Tencent Cloud SDK as client', {
  timeout: 120_000,
}, () => {
  let server: SandboxServer;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandgym-ags-'));
    server = await SandboxServer.start({
      provider: NO_SANDBOXES,
      keys: KeyStore.of([]),
      ags: {
        keys: AgsKeyStore.of({ [ID]: SECRET }),
        tools: await ToolStore.open(join(dir, 'tools.json')),
        region: REGION,
      },
    });
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers a signed call in Tencent Cloud's envelope", async () => {
    const r = await client(server.url).call<{
      SandboxToolSet: unknown[];
      TotalCount: number;
      RequestId: string;
    }>('DescribeSandboxToolList', {});
    assert.deepEqual(r.SandboxToolSet, []);
    assert.equal(r.TotalCount, 0);
    assert.match(r.RequestId, /^[0-9a-f-]{36}$/);
  });

  it('refuses a wrong key, a wrong secret, a tampered body, a stale timestamp, another region', async () => {
    const unknown = await callError(
      client(server.url, { id: 'AKIDnobody0000000000000000000000' }).call('DescribeSandboxToolList', {}),
    );
    assert.equal(unknown.code, 'AuthFailure.SecretIdNotFound');
    assert.match(unknown.message, /RequestId [0-9a-f-]{36}.*AGS_REGION/);
    const wrong = await callError(
      client(server.url, { secret: `${SECRET}x` }).call('DescribeSandboxToolList', {}),
    );
    assert.equal(wrong.code, 'AuthFailure.SignatureFailure');
    const good = await rawCall(server.url, { signedBody: '{"Limit":1}' });
    assert.equal(good.Response.Error, undefined, 'the raw request is right when untampered');
    const tampered = await rawCall(server.url, { signedBody: '{"Limit":1}', sentBody: '{"Limit":2}' });
    assert.equal(tampered.Response.Error?.Code, 'AuthFailure.SignatureFailure');
    const stale = await rawCall(server.url, {
      signedBody: '{}',
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    assert.equal(stale.Response.Error?.Code, 'AuthFailure.SignatureExpire');
    const region = await callError(
      client(server.url, { region: 'ap-shanghai' }).call('DescribeSandboxToolList', {}),
    );
    assert.equal(region.code, 'UnsupportedRegion');
    assert.match(region.message, /AGS_REGION=ap-shanghai/);
  });

  it("checks parameters with Tencent Cloud's error codes", async () => {
    const c = client(server.url);
    assert.equal(
      (await callError(c.call('CreateSandboxTool', { ToolType: 'custom' }))).code,
      'MissingParameter',
    );
    const bad = {
      ToolName: 'bad name!',
      ToolType: 'custom',
      NetworkConfiguration: { NetworkMode: 'SANDBOX' },
    };
    assert.equal((await callError(c.call('CreateSandboxTool', bad))).code, 'InvalidParameterValue');
    const open = {
      ToolName: 'x',
      ToolType: 'custom',
      NetworkConfiguration: { NetworkMode: 'PUBLIC' },
      CustomConfiguration: { Image: 'a' },
    };
    assert.equal((await callError(c.call('CreateSandboxTool', open))).code, 'UnsupportedOperation');
    assert.equal((await callError(c.call('NoSuchThing', {}))).code, 'InvalidAction');
    assert.equal(
      (await callError(c.call('StopSandboxInstance', { InstanceId: 'nope' }))).code,
      'ResourceNotFound',
    );
  });

  it('syncs images to tools: a rerun and a rerun after a crash create nothing twice', async () => {
    // Every request and answer of the sync has exactly the fields of Tencent's published models.
    const modelErrorsSeen: string[] = [];
    const c = modelCheckingApi(client(server.url), modelErrorsSeen);
    const images = ['sandgym/swe-a:latest', 'sandgym/swe-b', 'registry.example:5000/team/swe-c:v1'];
    const mapPath = join(dir, 'tool_mapping.json');
    // A crash after the create of swe-b reached the server and before the map was written: the rerun
    // finds the tool by its tags; a create retried after a lost answer gets it back by its ClientToken.
    const crashedCreate = {
      ToolName: toolNameFor(images[1]!),
      ToolType: 'custom',
      NetworkConfiguration: { NetworkMode: 'SANDBOX' },
      ClientToken: clientTokenFor(images[1]!),
      Tags: [
        { Key: TAG_OWNER, Value: 'sandgym' },
        { Key: TAG_IMAGE, Value: 'sandgym/swe-b:latest' },
      ],
      CustomConfiguration: { Image: images[1] },
    };
    const crashed = await c.call<{ ToolId: string }>('CreateSandboxTool', crashedCreate);
    assert.equal(
      (await c.call<{ ToolId: string }>('CreateSandboxTool', crashedCreate)).ToolId,
      crashed.ToolId,
    );
    const cold = await syncTools({ api: c, images, dataset: 'test', mapPath, jobs: 2 });
    assert.deepEqual(cold.map((r) => r.action).sort(), ['created', 'created', 'reused']);
    assert.equal(cold.find((r) => r.image === 'sandgym/swe-b:latest')?.toolId, crashed.ToolId);
    const warm = await syncTools({ api: c, images, dataset: 'test', mapPath });
    assert.deepEqual(
      warm.map((r) => r.action),
      ['reused', 'reused', 'reused'],
    );
    const listed = await c.call<{ TotalCount: number }>('DescribeSandboxToolList', {});
    assert.equal(listed.TotalCount, 3, 'one tool per image');
    const map = JSON.parse(await readFile(mapPath, 'utf8'));
    assert.equal(map['sandgym/swe-a:latest'].tool_name, toolNameFor('sandgym/swe-a'));
    assert.equal(
      server.settings.templates[toolNameFor('sandgym/swe-a')],
      'sandgym/swe-a:latest',
      'E2B template',
    );
    const dry = await syncTools({
      api: c,
      images: [...images, 'sandgym/new'],
      dataset: 'test',
      mapPath,
      dryRun: true,
    });
    assert.equal(dry.filter((r) => r.action === 'would create').length, 1);
    assert.equal((await c.call<{ TotalCount: number }>('DescribeSandboxToolList', {})).TotalCount, 3);
    assert.deepEqual(modelErrorsSeen, [], 'requests and answers have the fields of the published models');
  });

  it('a failed create stops the sync; the tools made before it are in the map, and a rerun finishes', async () => {
    const c = client(server.url);
    const images = ['sandgym/fail-a', 'sandgym/fail-b', 'sandgym/fail-c'];
    const mapPath = join(dir, 'fail-map.json');
    let creates = 0;
    const failing: AgsApi = {
      call: (action, params) =>
        action === 'CreateSandboxTool' && ++creates === 2
          ? Promise.reject(new Error('quota exceeded'))
          : c.call(action, params),
    };
    await assert.rejects(
      syncTools({ api: failing, images, dataset: 'test', mapPath, jobs: 1 }),
      /quota exceeded/,
    );
    assert.deepEqual(Object.keys(JSON.parse(await readFile(mapPath, 'utf8'))), ['sandgym/fail-a:latest']);
    const rerun = await syncTools({ api: c, images, dataset: 'test', mapPath });
    assert.deepEqual(
      rerun.map((r) => r.action),
      ['reused', 'created', 'created'],
    );
  });

  it('the model check itself catches a field the model lacks, a missing one, a wrong kind', () => {
    assert.deepEqual(modelErrors({ ToolId: 'x', RequestId: 'r' }, 'CreateSandboxToolResponse'), []);
    assert.equal(modelErrors({ ToolId: 'x', Bogus: 1 }, 'CreateSandboxToolResponse').length, 1);
    assert.equal(modelErrors({}, 'DeleteSandboxToolRequest').length, 1);
    assert.equal(
      modelErrors({ SandboxToolSet: [{ ToolId: 1 }] }, 'DescribeSandboxToolListResponse').length,
      1,
    );
  });
});
