import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureTaskImages, loadDatasets } from '../../cli/commands/datasets.ts';
import { validateTasks } from '../../cli/commands/validate.ts';
import { AgsClient, gcAgs, syncTools, toolNameFor } from '../../sandbox/ags/index.ts';
import { createE2BProvider } from '../../sandbox/e2b/index.ts';
import { localTestSkipReason } from '../../sandbox/local/test-support.ts';
import { bootId, currentRunId, formatRunId, hostId } from '../../sandbox/owner.ts';
import { LABELS } from '../../sandbox/types.ts';
import { modelCheckingApi } from '../testing/ags-models.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { AgsKeyStore } from './ags-keys.ts';
import { ToolStore } from './tool-store.ts';

/**
 * The AGS workflow on one host: the official Tencent Cloud SDK syncs a bundled task's image to a tool of
 * `sandgym serve`, then the e2b provider, given the map the sync wrote, grades the task's gold and empty
 * patches in sandboxes started from that tool by the E2B protocol. Instances: start, list, stop.
 */
const ID = 'AKIDsandgymWorkflowKey00000000000000';
const SECRET = 'sandgymWorkflowSecret00000000000000';
const E2B_KEY = 'sgk_ags-workflow-test-key';
const REGION = 'ap-guangzhou';

describe('AGS workflow: sync, then validate through the e2b provider', {
  skip: (await localTestSkipReason()) ?? false,
  timeout: 600_000,
}, () => {
  let t: TestServer;
  let dir: string;
  const started: string[] = [];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandgym-ags-workflow-'));
    t = await startTestServer({
      keys: [E2B_KEY],
      ags: { keys: AgsKeyStore.of({ [ID]: SECRET }), tools: await ToolStore.open(), region: REGION },
      log: (line) => {
        const m = /^sandbox \S+ started for key \S+ \((\S+)\)/.exec(line);
        if (m) started.push(m[1]!);
      },
    });
  });
  after(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const api = () => new AgsClient({ secretId: ID, secretKey: SECRET, region: REGION, endpoint: t.url }, 0);

  it("resolves a bundled task's gold patch in sandboxes of its synced tool", async () => {
    const [task] = await loadDatasets(['bundled:swe'], { skipInvalid: false });
    await ensureTaskImages([task!], t.provider);
    const mapPath = join(dir, 'tool_mapping.json');
    const synced = await syncTools({ api: api(), images: [task!.image], dataset: 'bundled:swe', mapPath });
    assert.equal(synced[0]?.action, 'created');
    const e2b = await createE2BProvider(
      { options: { apiKey: E2B_KEY, apiUrl: t.url, sandboxUrl: t.url, templateMap: mapPath } },
      {},
    );
    try {
      const [v] = await validateTasks([task!], e2b, { workers: 2, timeoutMs: 300_000 });
      assert.ok(v?.ok, `gold ${v?.gold.reason}; empty ${v?.empty.reason}`);
    } finally {
      await e2b.close();
    }
    assert.deepEqual(
      started,
      [toolNameFor(task!.image), toolNameFor(task!.image)],
      'both sandboxes came from the tool',
    );
  });

  it('starts, lists and stops a sandbox instance of a tool', async () => {
    const modelErrors: string[] = [];
    const c = modelCheckingApi(api(), modelErrors);
    const taken = { ToolName: 'base', ToolType: 'custom', NetworkConfiguration: { NetworkMode: 'SANDBOX' } };
    await assert.rejects(c.call('CreateSandboxTool', { ...taken, CustomConfiguration: { Image: 'x' } }), {
      code: 'ResourceInUse',
    });
    const { ToolId } = await c.call<{ ToolId: string }>('CreateSandboxTool', {
      ToolName: 'base-tool',
      ToolType: 'custom',
      NetworkConfiguration: { NetworkMode: 'SANDBOX' },
      CustomConfiguration: { Image: 'sandgym/base' },
    });
    const { Instance } = await c.call<{ Instance: { InstanceId: string; Status: string; ToolId: string } }>(
      'StartSandboxInstance',
      { ToolName: 'base-tool', Timeout: '2m', Metadata: [{ Name: 'who', Value: 'test' }] },
    );
    assert.equal(Instance.Status, 'RUNNING');
    const again = { ToolName: 'base-tool', ClientToken: 'start-1' };
    const first = await c.call<{ Instance: { InstanceId: string } }>('StartSandboxInstance', again);
    const retried = await c.call<{ Instance: { InstanceId: string } }>('StartSandboxInstance', again);
    assert.equal(retried.Instance.InstanceId, first.Instance.InstanceId, 'a retried start starts nothing');
    await c.call('StopSandboxInstance', { InstanceId: first.Instance.InstanceId });
    assert.equal(Instance.ToolId, ToolId);
    const listed = await c.call<{
      InstanceSet: { InstanceId: string; Metadata: unknown }[];
      TotalCount: number;
    }>('DescribeSandboxInstanceList', { ToolId });
    assert.equal(listed.TotalCount, 1);
    assert.deepEqual(listed.InstanceSet[0]?.Metadata, [{ Name: 'who', Value: 'test' }]);
    await c.call('StopSandboxInstance', { InstanceId: Instance.InstanceId });
    assert.equal(
      (await c.call<{ TotalCount: number }>('DescribeSandboxInstanceList', { ToolId })).TotalCount,
      0,
    );
    await c.call('DeleteSandboxTool', { ToolId });
    assert.equal(
      (await c.call<{ TotalCount: number }>('DescribeSandboxToolList', { ToolIds: [ToolId] })).TotalCount,
      0,
    );
    assert.deepEqual(modelErrors, [], 'requests and answers have the fields of the published models');
  });

  it("gc stops the instances of dead runs, keeps live runs' and others'; --all deletes tools left unused", async () => {
    const c = api();
    const make = async (name: string) =>
      (
        await c.call<{ ToolId: string }>('CreateSandboxTool', {
          ToolName: name,
          ToolType: 'custom',
          NetworkConfiguration: { NetworkMode: 'SANDBOX' },
          Tags: [
            { Key: 'sandgym-owner', Value: 'sandgym' },
            { Key: 'sandgym-image', Value: `sandgym/${name}` },
          ],
          CustomConfiguration: { Image: 'sandgym/base' },
        })
      ).ToolId;
    const [mine, shared] = [await make('gc-mine'), await make('gc-shared')];
    const start = async (ToolId: string, run?: string) =>
      (
        await c.call<{ Instance: { InstanceId: string } }>('StartSandboxInstance', {
          ToolId,
          Metadata: run === undefined ? [] : [{ Name: LABELS.run, Value: run }],
        })
      ).Instance.InstanceId;
    // A run of this boot whose process is gone: same host and boot, a pid start time no process has.
    const dead = formatRunId({ host: hostId(), boot: bootId(), pid: process.pid, start: 1 });
    const deadOne = await start(mine, dead);
    const liveOne = await start(mine, currentRunId());
    const foreign = await start(shared);
    const first = await gcAgs(c);
    assert.deepEqual(first, { stopped: [deadOne], kept: 1, deletedTools: [] });
    const all = await gcAgs(c, { all: true });
    assert.deepEqual(all.stopped, [liveOne]);
    assert.ok(
      all.deletedTools.includes(mine) && !all.deletedTools.includes(shared),
      'a tool in use by others stays',
    );
    await c.call('StopSandboxInstance', { InstanceId: foreign });
  });
});
