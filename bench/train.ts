/**
 * npm run bench:train — the main job (`sandgym main`: oracle trajectories → SFT → RL on micro tasks, local
 * sandboxes, the reference engine) in a fresh run directory, then what it learned and how fast: the held-out
 * resolved rate before training, after SFT and after RL (the baseline for RL is the SFT model, measured in
 * the same run), and medians of the per-step timings. Extra arguments are config overrides
 * (`npm run bench:train -- trainer.total_training_steps=5`). The last line is one line of JSON.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mainJob } from '../src/cli/commands/train-job.ts';

const runDir = await mkdtemp(join(tmpdir(), 'sg-bench-train-'));
const t0 = performance.now();
const curve = await mainJob(process.argv.slice(2), runDir);
const minutes = (performance.now() - t0) / 60_000;

const rows = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Record<string, number>);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : Number.NaN;
};
const sft = rows.filter((r) => 'sft/loss' in r);
const rl = rows.filter((r) => 'actor/loss' in r);
const at = (phase: string) => curve.filter((c) => c.phase === phase).at(-1)?.resolvedRate ?? Number.NaN;
const before = at('init');
const afterSft = at('sft');
const afterRl = at('rl');
const bestRl = Math.max(...curve.filter((c) => c.phase === 'rl').map((c) => c.resolvedRate));
const episodes = rl.reduce((n, r) => n + (r['rollout/trajectories'] ?? 0), 0);
const rolloutSeconds = rl.reduce((n, r) => n + (r['perf/rollout_s'] ?? 0), 0);
const r3 = (x: number) => Math.round(x * 1000) / 1000;

console.log(`run directory: ${runDir} (${minutes.toFixed(1)} min)`);
console.log(
  `held-out resolved: before ${(100 * before).toFixed(1)}%, after SFT ${(100 * afterSft).toFixed(1)}%, ` +
    `after RL ${(100 * afterRl).toFixed(1)}% (best ${(100 * bestRl).toFixed(1)}%)`,
);
console.log(
  `SFT: ${sft.length} steps, median ${median(sft.map((r) => r['perf/tokens_per_s']!)).toFixed(0)} tokens/s; ` +
    `RL: ${rl.length} steps, median ${median(rl.map((r) => r['perf/rollout_s']!)).toFixed(1)} s rollout + ` +
    `${median(rl.map((r) => r['perf/train_s']!)).toFixed(1)} s update, ${((60 * episodes) / rolloutSeconds).toFixed(0)} episodes/min`,
);
console.log(
  JSON.stringify({
    minutes: r3(minutes),
    heldout_success_before: r3(before),
    heldout_success_after_sft: r3(afterSft),
    heldout_success_after_rl: r3(afterRl),
    heldout_success_best_rl: r3(bestRl),
    ratio_rl_over_sft: r3(afterRl / afterSft),
    steps: sft.length + rl.length,
    sft_steps: sft.length,
    rl_steps: rl.length,
    // Training tokens per second of the engine's forward_backward + optim_step, SFT steps (the median).
    tokens_per_s: Math.round(median(sft.map((r) => r['perf/tokens_per_s']!))),
    rl_tokens_per_s: Math.round(median(rl.map((r) => r['perf/tokens_per_s']!))),
    rl_rollout_s_median: r3(median(rl.map((r) => r['perf/rollout_s']!))),
    rl_update_s_median: r3(median(rl.map((r) => r['perf/train_s']!))),
    rl_episodes_per_min: Math.round((60 * episodes) / rolloutSeconds),
  }),
);
