/**
 * npm run bench:failfast — how soon a bad setting stops `sandgym train` (from process start to exit), and
 * how long `sandgym train configs/micro.yaml --dry-run` takes. Each run reports its wall clock and its own
 * CPU time (user + system, which a loaded machine inflates much less than the wall clock). Baseline, in
 * the same run: `sandgym --version`, which loads every command — what any command cost before commands
 * loaded lazily. Target: a bad setting fails within 1 s of start. Medians of ROUNDS runs; the last line
 * is one line of JSON.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROUNDS = 5;
const ROOT = join(import.meta.dirname, '..');
const MICRO = join(ROOT, 'configs', 'micro.yaml');
const RUNNER = join(import.meta.dirname, 'support', 'cli-cpu.ts');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Medians of wall-clock and CPU ms of the CLI with `args`, checking its exit code and output. */
function time(args: string[], status: number, expect: RegExp): { wall: number; cpu: number } {
  const runs = Array.from({ length: ROUNDS }, () => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', RUNNER, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const wall = performance.now() - t0;
    const cpu = Number(/cpu_us (\d+)/.exec(r.stderr)?.[1]) / 1000;
    if (r.status !== status || !expect.test(r.stdout + r.stderr) || !cpu) {
      throw new Error(`sandgym ${args.join(' ')}: exit ${r.status}\n${r.stdout}${r.stderr}`);
    }
    return { wall, cpu };
  });
  return { wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)) };
}

const show = (t: { wall: number; cpu: number }) => `${t.wall.toFixed(0)} ms wall, ${t.cpu.toFixed(0)} ms CPU`;
const baseline = time(['--version'], 0, /\d+\.\d+\.\d+/);
console.log(`baseline sandgym --version: ${show(baseline)}`);
const cases = {
  typo_adv_estimator: ['train', 'algorithm.adv_estimator=grpoo'],
  gae_refused: ['train', 'algorithm.adv_estimator=gae'],
  unknown_key: ['train', '+rollout.nn=4'],
};
const results: Record<string, { wall: number; cpu: number }> = {};
for (const [name, args] of Object.entries(cases)) {
  results[name] = time(args, 1, /^sandgym: invalid config:/m);
  console.log(`${name}: ${show(results[name])}`);
}
const dryRun = time(['train', MICRO, '--dry-run', 'engine.reference.tokenizer=byte'], 0, /all checks passed/);
console.log(`train configs/micro.yaml --dry-run: ${show(dryRun)}`);
const worst = Object.values(results).reduce((a, b) => (b.wall > a.wall ? b : a));
const round = (x: number) => Math.round(x);
console.log(
  JSON.stringify({
    rounds: ROUNDS,
    baseline_version_wall_ms: round(baseline.wall),
    baseline_version_cpu_ms: round(baseline.cpu),
    ...Object.fromEntries(Object.entries(results).map(([k, v]) => [`${k}_wall_ms`, round(v.wall)])),
    worst_bad_setting_wall_ms: round(worst.wall),
    worst_bad_setting_cpu_ms: round(worst.cpu),
    ratio_worst_over_baseline_wall: Math.round((worst.wall / baseline.wall) * 100) / 100,
    under_1s_wall: worst.wall < 1000,
    dry_run_micro_wall_ms: round(dryRun.wall),
    dry_run_micro_cpu_ms: round(dryRun.cpu),
  }),
);
