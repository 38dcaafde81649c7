import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { createProvider, type SandboxProvider } from '../sandbox/index.ts';
import { loadTasks, type Task } from '../tasks/index.ts';
import { runEpisode } from './episode.ts';
import { oraclePlan } from './policies/oracle-plan.ts';
import { PolicySampler } from './policies/policy-sampler.ts';

const skip = process.getuid?.() === 0 ? false : 'the local provider needs root';

describe('runEpisode on the local provider (bundled debug tasks)', { skip, timeout: 300_000 }, () => {
  let provider: SandboxProvider;
  let tasks: Task[];
  const config = loadConfig([], ['env.tools=[file_editor, search, execute_bash, pdb, finish]']);

  before(async () => {
    provider = await createProvider('local');
    tasks = (await loadTasks('datasets/bundled/debug.jsonl')).tasks.slice(0, 2);
  });
  after(async () => provider.close());

  it('the oracle resolves, with a trajectory that describes itself', async () => {
    const task = tasks[0]!;
    const plan = oraclePlan(task.patch, task.test.workdir, config.env.tools);
    const t = await runEpisode({
      task,
      sample: 0,
      config,
      provider,
      sampler: new PolicySampler(plan, 'function_calling'),
      policy: 'oracle',
    });
    assert.equal(t.termination, 'submitted', t.detail);
    assert.equal(t.reward, 1, JSON.stringify(t.grade));
    assert.equal(t.taskId, task.id);
    assert.equal(t.turns.length, plan.length);
    assert.match(t.patch, /solution\.py/);
    assert.ok(t.turns.every((turn) => turn.sandboxMs <= turn.envMs + 1));
  });

  it('the noop policy does not resolve', async () => {
    const task = tasks[1]!;
    const plan = oraclePlan('', task.test.workdir, config.env.tools);
    const t = await runEpisode({
      task,
      sample: 0,
      config,
      provider,
      sampler: new PolicySampler(plan, 'xml'),
      policy: 'noop',
    });
    assert.equal(t.termination, 'submitted');
    assert.equal(t.reward, 0);
    assert.equal(t.patch, '');
  });

  it('a task whose image is missing ends as error, reward null', async () => {
    const task = { ...tasks[0]!, image: 'sandgym-test/missing:1' } as Task;
    const t = await runEpisode({
      task,
      sample: 0,
      config,
      provider,
      sampler: new PolicySampler('malformed', 'xml'),
      policy: 'malformed',
    });
    assert.equal(t.termination, 'error');
    assert.equal(t.reward, null);
    assert.match(t.detail!, /missing/);
  });
});
