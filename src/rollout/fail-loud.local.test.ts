import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PolicySampler } from '../agent/policies/policy-sampler.ts';
import type { SamplerFactory } from '../agent/samplers.ts';
import { createSamplerFactory } from '../agent/samplers.ts';
import { loadConfig } from '../config/index.ts';
import { SandboxError } from '../errors.ts';
import { resolveHome } from '../sandbox/images/index.ts';
import { createProvider, currentRunId, type Sandbox, type SandboxProvider } from '../sandbox/index.ts';
import type { LocalProvider } from '../sandbox/local/local-provider.ts';
import { loadTasks, type Task } from '../tasks/index.ts';
import { checkErrorFraction } from './error-fraction.ts';
import { RolloutEngine } from './rollout-engine.ts';
import { TrajectoryStore } from './trajectory-store.ts';

/** Local sandboxes still open that this process owns (their meta.json names this run). */
async function sandboxesOfThisRun(): Promise<string[]> {
  const dir = join(resolveHome(), 'sandboxes');
  const mine: string[] = [];
  for (const id of await readdir(dir).catch(() => [])) {
    const meta = await readFile(join(dir, id, 'meta.json'), 'utf8').catch(() => '{}');
    if ((JSON.parse(meta) as { run?: string }).run === currentRunId()) mine.push(id);
  }
  return mine;
}

/** This run's sandboxes left once the provider has removed the closed ones (in the background). */
async function sandboxesLeft(provider: SandboxProvider): Promise<string[]> {
  await (provider as LocalProvider).released();
  return sandboxesOfThisRun();
}

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';

/** The real local provider, whose hosts for one task's sandboxes are out of memory. */
function failingFor(real: SandboxProvider, taskId: string): SandboxProvider {
  let calls = 0;
  return {
    name: real.name,
    hasImage: (image) => real.hasImage(image),
    gc: (o) => real.gc(o),
    close: () => real.close(),
    create: async (o) => {
      if (o.labels?.['sandgym.task'] === taskId)
        throw new SandboxError(undefined, `host ${1000 + calls++} is out of memory`);
      return real.create(o);
    },
  };
}

/** The real local provider, whose sandboxes hit a bug (a TypeError) when a command names `__bug__`. */
function buggy(real: SandboxProvider): SandboxProvider {
  const wrap = (s: Sandbox): Sandbox =>
    new Proxy(s, {
      get(target, key, receiver) {
        if (key === 'exec') {
          return (command: string | readonly string[], options?: object) => {
            if (String(command).includes('__bug__')) {
              const parsed = undefined as unknown as { exitCode: number };
              return Promise.resolve(parsed.exitCode);
            }
            return target.exec(command, options);
          };
        }
        const v = Reflect.get(target, key, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  return { ...failingFor(real, ''), create: async (o) => wrap(await real.create(o)) };
}

describe('bugs stop a rollout; infrastructure faults become errors that stop a mostly-broken batch', {
  skip,
  timeout: 600_000,
}, () => {
  let provider: SandboxProvider;
  let tasks: Task[];
  let all: Task[];
  before(async () => {
    provider = await createProvider('local');
    all = (await loadTasks('datasets/bundled/debug.jsonl')).tasks.slice(0, 3);
    tasks = all.slice(0, 2);
  });
  after(async () => provider.close());

  it('a TypeError inside a tool call stops the batch with its stack; nothing unfinished is stored', async () => {
    const config = loadConfig([], ['rollout.fork=false', 'rollout.n_parallel=2']);
    const plan = [{ name: 'execute_bash', arguments: { cmd: 'echo __bug__' } }];
    const samplers: SamplerFactory = {
      policy: 'buggy',
      forTask: () => new PolicySampler(plan, config.agent.tool_call_format),
    };
    const store = TrajectoryStore.open(join(mkdtempSync(join(tmpdir(), 'sg-bug-')), 't.jsonl'));
    await assert.rejects(
      new RolloutEngine({ provider: buggy(provider), config, samplers, store }).run(tasks, 2),
      (e: unknown) => e instanceof TypeError && /fail-loud\.local\.test\.ts/.test(e.stack ?? ''),
    );
    assert.equal(store.size, 0, 'no episode was recorded as a masked error');
    assert.deepEqual(await sandboxesLeft(provider), [], 'every sandbox of the stopped batch is closed');
    store.close();
  });

  it('a provider failing half the episodes stops the step with the counts; a rerun continues', async () => {
    const config = loadConfig([], ['rollout.fork=false', 'rollout.retry_limit=0', 'rollout.n_parallel=1']);
    const path = join(mkdtempSync(join(tmpdir(), 'sg-half-')), 't.jsonl');
    const store = TrajectoryStore.open(path);
    const samplers = await createSamplerFactory(config);
    await new RolloutEngine({ provider: failingFor(provider, tasks[1]!.id), config, samplers, store }).run(
      tasks,
      2,
    );
    const first = store.forTasks(tasks, 2);
    assert.equal(first.filter((t) => t.termination === 'error').length, 2);
    assert.throws(
      () => checkErrorFraction(first, config.rollout.max_error_fraction, 'rl step 1'),
      (e: unknown) =>
        e instanceof Error &&
        /^rl step 1: 2 of 4 episodes \(50%\) ended in an infrastructure error, more than rollout\.max_error_fraction=0\.25; most common \(2×\): preparing the sandbox: host \d+ is out of memory \(e\.g\. episode .+#\d\)/.test(
          e.message,
        ),
    );
    store.close();

    const again = TrajectoryStore.open(path);
    const r = await new RolloutEngine({ provider, config, samplers, store: again }).run(tasks, 2);
    assert.equal(r.stats.skipped, 2, 'the finished episodes are kept');
    assert.equal(r.trajectories.length, 2, 'the errored ones run again');
    const all = again.forTasks(tasks, 2);
    assert.deepEqual(
      all.map((t) => t.reward),
      [1, 1, 1, 1],
    );
    assert.equal(checkErrorFraction(all, 0.25, 'rl step 1').errors, 0);
    assert.deepEqual(await sandboxesLeft(provider), []);
    again.close();
  });

  it('with maxErrorFraction, the batch stops as soon as its errors exceed it, not after the rest', async () => {
    const config = loadConfig([], ['rollout.fork=false', 'rollout.retry_limit=0', 'rollout.n_parallel=1']);
    const path = join(mkdtempSync(join(tmpdir(), 'sg-early-')), 't.jsonl');
    const store = TrajectoryStore.open(path);
    const samplers = await createSamplerFactory(config);
    // 3 tasks × 2 = 6 episodes, the first task's 2 fail: 2 > 0.25 × 6 already, so the other 4 never start.
    await assert.rejects(
      new RolloutEngine({
        provider: failingFor(provider, all[0]!.id),
        config,
        samplers,
        store,
        maxErrorFraction: 0.25,
        label: 'rl step 7',
      }).run(all, 2),
      (e: unknown) =>
        e instanceof Error &&
        /^rl step 7: 2 of 6 episodes \(33%\) ended in an infrastructure error, more than rollout\.max_error_fraction=0\.25; most common \(2×\): preparing the sandbox: host \d+ is out of memory/.test(
          e.message,
        ),
    );
    assert.equal(store.size, 2, 'only the errored episodes ran');
    store.close();
    assert.deepEqual(await sandboxesLeft(provider), []);
  });
});
