/**
 * npm run bench:failfast — how soon a bad setting stops `sandgym train`, from process start to exit, and
 * how long `sandgym train configs/micro.yaml --dry-run` takes. The baseline, measured in the same run, is
 * `sandgym --version`: starting Node, tsx and the CLI, which every command pays. Target: a bad setting
 * fails within 1 s of start. Medians of ROUNDS runs; the last line is one line of JSON.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROUNDS = 5;
const CLI = join(import.meta.dirname, '..', 'bin', 'sandgym.js');
const MICRO = join(import.meta.dirname, '..', 'configs', 'micro.yaml');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Wall-clock ms of each run of the CLI with `args`, checking its exit code and output. */
function time(args: string[], status: number, expect: RegExp): number[] {
  return Array.from({ length: ROUNDS }, () => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
    const ms = performance.now() - t0;
    if (r.status !== status || !expect.test(r.stdout + r.stderr)) {
      throw new Error(`sandgym ${args.join(' ')}: exit ${r.status}\n${r.stdout}${r.stderr}`);
    }
    return ms;
  });
}

const baseline = median(time(['--version'], 0, /\d+\.\d+\.\d+/));
const cases = {
  typo_adv_estimator: ['train', 'algorithm.adv_estimator=grpoo'],
  gae_refused: ['train', 'algorithm.adv_estimator=gae'],
  unknown_key: ['train', '+rollout.nn=4'],
};
const results: Record<string, number> = {};
for (const [name, args] of Object.entries(cases)) {
  results[name] = median(time(args, 1, /^sandgym: invalid config:/m));
  console.log(`${name}: ${results[name].toFixed(0)} ms (baseline --version ${baseline.toFixed(0)} ms)`);
}
const dryRun = median(
  time(['train', MICRO, '--dry-run', 'engine.reference.tokenizer=byte'], 0, /all checks passed/),
);
console.log(`train configs/micro.yaml --dry-run: ${dryRun.toFixed(0)} ms`);
const worst = Math.max(...Object.values(results));
console.log(
  JSON.stringify({
    rounds: ROUNDS,
    baseline_version_ms: Math.round(baseline),
    ...Object.fromEntries(Object.entries(results).map(([k, v]) => [`${k}_ms`, Math.round(v)])),
    worst_bad_setting_ms: Math.round(worst),
    ratio_worst_over_baseline: Math.round((worst / baseline) * 100) / 100,
    under_1s: worst < 1000,
    dry_run_micro_ms: Math.round(dryRun),
  }),
);
