/**
 * npm run bench:episode — whole episodes (prepare, agent loop, grading) with the oracle and the noop
 * policies, 32 at once on the local provider, through the same rollout engine `sandgym run` uses.
 * overhead_ms_per_step is the time of a step spent neither in the sampler nor waiting on the sandbox: the
 * cost of sandgym's own loop, tool and observation code. The last line is one line of JSON.
 */

import { createSamplerFactory } from '../src/agent/samplers.ts';
import { ensureTaskImages, loadDatasets } from '../src/cli/commands/datasets.ts';
import { loadConfig } from '../src/config/index.ts';
import { RolloutEngine, summarize } from '../src/rollout/index.ts';
import { createProvider } from '../src/sandbox/index.ts';

const EPISODES = 32;
const all = await loadDatasets(['bundled:swe', 'bundled:debug'], { skipInvalid: false });
// An even spread over both kinds of task.
const tasks = all.filter((_, i) => i % Math.floor(all.length / EPISODES) === 0).slice(0, EPISODES);
const provider = await createProvider('local');
await ensureTaskImages(tasks, provider);

async function run(policy: string) {
  const config = loadConfig(
    [],
    ['llm.backend=policy', `llm.policy=${policy}`, `rollout.n_parallel=${EPISODES}`],
  );
  const engine = new RolloutEngine({ provider, config, samplers: await createSamplerFactory(config) });
  const t0 = performance.now();
  const { trajectories } = await engine.run(tasks, 1);
  const minutes = (performance.now() - t0) / 60_000;
  const s = summarize(trajectories);
  const steps = trajectories.flatMap((t) => t.turns);
  const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  console.log(
    `${policy}: ${s.resolved}/${s.scored} resolved, ${(trajectories.length / minutes).toFixed(1)} episodes/min, ` +
      `steps ${steps.length}, step p50 ${medianOf(steps.map((t) => t.totalMs)).toFixed(1)} ms ` +
      `(sandbox ${medianOf(steps.map((t) => t.sandboxMs)).toFixed(1)} ms, overhead ${s.overheadMsPerStepP50.toFixed(2)} ms)`,
  );
  return { s, perMin: trajectories.length / minutes };
}

const oracle = await run('oracle');
const noop = await run('noop');
await provider.close();
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
console.log(
  JSON.stringify({
    episodes: tasks.length,
    oracle_resolved_rate: round(oracle.s.resolvedRate, 3),
    noop_resolved_rate: round(noop.s.resolvedRate, 3),
    episodes_per_min: round(oracle.perMin),
    overhead_ms_per_step_p50: round(oracle.s.overheadMsPerStepP50, 2),
    mean_grade_s: round(oracle.s.meanGradeMs / 1000, 2),
  }),
);
