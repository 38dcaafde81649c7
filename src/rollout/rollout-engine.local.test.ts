import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSamplerFactory } from '../agent/samplers.ts';
import { loadConfig } from '../config/index.ts';
import { resolveHome } from '../sandbox/images/index.ts';
import { createProvider, currentRunId, type SandboxProvider } from '../sandbox/index.ts';
import type { LocalProvider } from '../sandbox/local/local-provider.ts';
import { loadTasks, type Task } from '../tasks/index.ts';
import { RolloutEngine } from './rollout-engine.ts';
import { TrajectoryStore } from './trajectory-store.ts';

/** Local sandboxes still open that this process owns (their meta.json names this run). */
async function sandboxesOfThisRun(): Promise<string[]> {
  const dir = join(resolveHome(), 'sandboxes');
  const ids = await readdir(dir).catch(() => []);
  const mine: string[] = [];
  for (const id of ids) {
    const meta = await readFile(join(dir, id, 'meta.json'), 'utf8').catch(() => '{}');
    if ((JSON.parse(meta) as { run?: string }).run === currentRunId()) mine.push(id);
  }
  return mine;
}

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';

describe('RolloutEngine on the local provider', { skip, timeout: 600_000 }, () => {
  let provider: SandboxProvider;
  let tasks: Task[];
  before(async () => {
    provider = await createProvider('local');
    tasks = (await loadTasks('datasets/bundled/debug.jsonl')).tasks.slice(0, 3);
  });
  after(async () => provider.close());

  for (const fork of [true, false]) {
    it(`runs tasks × samples with the oracle, fork=${fork}, and resumes from the store`, async () => {
      const config = loadConfig([], [`rollout.fork=${fork}`, 'rollout.n_parallel=4', 'rollout.warm_pool=1']);
      const path = join(mkdtempSync(join(tmpdir(), 'sg-rollout-')), 't.jsonl');
      const store = TrajectoryStore.open(path);
      const engine = new RolloutEngine({
        provider,
        config,
        samplers: await createSamplerFactory(config),
        store,
      });
      const r = await engine.run(tasks, 2);
      assert.equal(r.trajectories.length, 6);
      assert.deepEqual(
        r.trajectories.map((t) => [t.taskId, t.sample, t.reward]),
        tasks.flatMap((t) => [
          [t.id, 0, 1],
          [t.id, 1, 1],
        ]),
      );
      assert.equal(r.stats.forkedGroups, fork ? 3 : 0);
      assert.equal(r.stats.freshSandboxes, fork ? 0 : 6);
      store.close();
      const again = TrajectoryStore.open(path);
      const r2 = await new RolloutEngine({
        provider,
        config,
        samplers: await createSamplerFactory(config),
        store: again,
      }).run(tasks, 3);
      assert.equal(r2.stats.skipped, 6);
      assert.deepEqual(
        r2.trajectories.map((t) => t.sample),
        [2, 2, 2],
      );
      assert.equal(again.size, 9);
      again.close();
    });
  }

  it('retries infrastructure faults, then keeps them as error with reward null', async () => {
    const config = loadConfig([], ['rollout.retry_limit=2']);
    const broken = { ...tasks[0]!, id: 'broken', image: 'sandgym-test/absent:1' } as Task;
    const r = await new RolloutEngine({ provider, config, samplers: await createSamplerFactory(config) }).run(
      [broken],
      1,
    );
    assert.equal(r.trajectories[0]!.termination, 'error');
    assert.equal(r.trajectories[0]!.reward, null);
    assert.equal(r.stats.retries, 2);
    assert.equal(r.stats.errors, 1);
  });

  it('stops at an abort without recording unfinished episodes or leaking sandboxes', async () => {
    const config = loadConfig([], ['rollout.n_parallel=1']);
    const ac = new AbortController();
    const engine = new RolloutEngine({
      provider,
      config,
      samplers: await createSamplerFactory(config),
      signal: ac.signal,
      onTrajectory: () => ac.abort(),
    });
    const r = await engine.run(tasks, 2);
    assert.equal(r.trajectories.length, 1);
    // close() removes a sandbox's directory in the background; released() waits for that.
    await (provider as LocalProvider).released();
    assert.deepEqual(await sandboxesOfThisRun(), [], 'every sandbox of this run is closed');
  });
});
