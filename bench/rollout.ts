/**
 * npm run bench:rollout — the rollout engine with the oracle policy, rollout.n = 8 over 16 tasks on the
 * local provider: once preparing each task once and fork(8)-ing it (with the warm pool preparing the next
 * tasks meanwhile), once preparing a fresh sandbox for every sample. Same tasks, same concurrency, one run.
 * The last line is one line of JSON.
 */
import { createSamplerFactory } from '../src/agent/samplers.ts';
import { ensureTaskImages, loadDatasets } from '../src/cli/commands/datasets.ts';
import { loadConfig } from '../src/config/index.ts';
import { RolloutEngine, summarize } from '../src/rollout/index.ts';
import { createProvider } from '../src/sandbox/index.ts';

const TASKS = 16;
const N = 8;
// The tasks RL trains on by default: micro tasks (set BENCH_DATASET=bundled:swe for the bundled SWE tasks).
const dataset = process.env.BENCH_DATASET ?? 'bundled:micro';
const all = await loadDatasets([dataset], { skipInvalid: false });
const tasks = all.filter((_, i) => i % Math.floor(all.length / TASKS) === 0).slice(0, TASKS);
const provider = await createProvider('local');
await ensureTaskImages(tasks, provider);

async function run(fork: boolean) {
  const config = loadConfig(
    [],
    [
      'llm.backend=policy',
      'llm.policy=oracle',
      `rollout.fork=${fork}`,
      `rollout.n=${N}`,
      'rollout.n_parallel=16',
      'rollout.create_concurrency=8',
      'rollout.warm_pool=2',
    ],
  );
  const engine = new RolloutEngine({ provider, config, samplers: await createSamplerFactory(config) });
  const t0 = performance.now();
  const { trajectories, stats } = await engine.run(tasks, N);
  const minutes = (performance.now() - t0) / 60_000;
  const s = summarize(trajectories);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(
    `fork=${fork}: ${trajectories.length} episodes in ${(minutes * 60).toFixed(1)} s, ${s.resolved}/${s.scored} resolved, ` +
      `grading ${mean(trajectories.map((t) => t.timing.gradeMs)).toFixed(0)} ms per episode; ${JSON.stringify(stats)}`,
  );
  return { perMin: trajectories.length / minutes, resolved: s.resolvedRate };
}

const fork = await run(true);
const nofork = await run(false);
await provider.close();
const round = (x: number) => Math.round(x * 10) / 10;
console.log(
  JSON.stringify({
    dataset,
    tasks: TASKS,
    rollout_n: N,
    resolved_fork: fork.resolved,
    resolved_nofork: nofork.resolved,
    episodes_per_min_fork: round(fork.perMin),
    episodes_per_min_nofork: round(nofork.perMin),
    ratio_fork_over_nofork: round(fork.perMin / nofork.perMin),
  }),
);
