/**
 * npm run bench:tinker — one RL step's engine traffic over the Tinker API: forward_backward on 64
 * sequences of 128 tokens, optim_step, a checkpoint save, and 64 samples (8 prompts × 8), against
 * `sandgym engine serve` (tiny reference model, in this process) behind a fetch that adds 50 ms to
 * every round trip, as a remote server would. Measured two ways in the same run, interleaved:
 *
 * - pipelined, as the Tinker SDK does: every request is posted without waiting for the one before
 *   (the server orders training requests by seq_id), samples run concurrently;
 * - sequential: each call awaited before the next.
 *
 * and the same work on the in-process engine, for what the HTTP path costs. Then, unless
 * BENCH_TINKER_SKIP_TRAIN=1, the local end-to-end test (test/train-tinker.local.test.ts: `sandgym main`
 * with trainer.engine=tinker against `engine serve` in its default mode and with `--compat skyrl`,
 * kill -9 and resume, then the same run uninterrupted, whose server-side weights must equal the resumed
 * run's byte for byte) runs once; its outcomes are `default_mode_train_ok` and `skyrl_mode_train_ok`. Prints medians and ratios; the last line is one line of JSON.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Datum, TrainingEngine } from '../src/train/index.ts';
import { ReferenceEngine } from '../src/train/reference/index.ts';
import { EngineServer } from '../src/train/server/index.ts';
import { TinkerEngine } from '../src/train/tinker/index.ts';

const ROUND_TRIP_MS = 50;
const SEQUENCES = 64;
const SEQ_LEN = 128;
const PROMPTS = 8;
const SAMPLES_PER_PROMPT = 8;
const SAMPLE_TOKENS = 16;
const ROUNDS = Number(process.env.BENCH_TINKER_ROUNDS ?? 3);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function tokens(n: number, seed: number): number[] {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return 32 + (s % 90);
  });
}

const data: Datum[] = Array.from({ length: SEQUENCES }, (_, i) => {
  const t = tokens(SEQ_LEN + 1, i + 1);
  return {
    model_input: { chunks: [{ type: 'encoded_text', tokens: t.slice(0, -1) }] },
    loss_fn_inputs: { target_tokens: { data: t.slice(1), dtype: 'int64' } },
  };
});
const prompts = Array.from({ length: PROMPTS }, (_, i) => tokens(16, 100 + i));
const params = { max_tokens: SAMPLE_TOKENS, temperature: 1, seed: 1 };

/** One step, each call awaited before the next. */
async function sequential(engine: TrainingEngine, dir: string, step: number): Promise<void> {
  await engine.forwardBackward(data, 'cross_entropy');
  await engine.optimStep({ learning_rate: 1e-3 });
  await engine.saveState(join(dir, `step-${step}`), { name: `rl-${step}` });
  for (const p of prompts) await engine.sample(p, params, SAMPLES_PER_PROMPT);
}

/** The same step with every request in flight at once, as the SDK submits them. */
async function pipelined(engine: TrainingEngine, dir: string, step: number): Promise<void> {
  await Promise.all([
    engine.forwardBackward(data, 'cross_entropy'),
    engine.optimStep({ learning_rate: 1e-3 }),
    engine.saveState(join(dir, `step-${step}`), { name: `rl-${step}` }),
    ...prompts.map((p) => engine.sample(p, params, SAMPLES_PER_PROMPT)),
  ]);
}

async function time(fn: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await fn();
  return (performance.now() - t) / 1000;
}

const dir = await mkdtemp(join(tmpdir(), 'sg-bench-tinker-'));
const server = await EngineServer.start({
  port: 0,
  weightsDir: join(dir, 'weights'),
  seed: 1,
  longPollMs: 30_000,
});
let requests = 0;
/** A remote server: every request waits a round trip before it goes out. */
const slowFetch = (async (url: string | URL | Request, init?: RequestInit) => {
  requests++;
  await sleep(ROUND_TRIP_MS);
  return fetch(url, init);
}) as typeof fetch;
const remote = await TinkerEngine.create({ baseUrl: server.url, fetch: slowFetch, seed: 1 });
const local = await ReferenceEngine.create({ model: 'tiny', seed: 1 });

const times = { pipelined: [] as number[], sequential: [] as number[], local: [] as number[] };
const roundTrips: number[] = [];
await pipelined(remote, join(dir, 'warm'), 0);
for (let round = 1; round <= ROUNDS; round++) {
  const before = requests;
  times.sequential.push(await time(() => sequential(remote, join(dir, 'seq'), round)));
  roundTrips.push(requests - before);
  times.pipelined.push(await time(() => pipelined(remote, join(dir, 'pipe'), round)));
  times.local.push(await time(() => sequential(local, join(dir, 'local'), round)));
  console.log(
    `round ${round}: sequential ${times.sequential.at(-1)!.toFixed(2)} s, pipelined ${times.pipelined.at(-1)!.toFixed(2)} s, in-process ${times.local.at(-1)!.toFixed(2)} s`,
  );
}
await remote.close();
await local.close();
await server.close();
await rm(dir, { recursive: true, force: true });

let skyrlOk: boolean | null = null;
let defaultOk: boolean | null = null;
if (process.env.BENCH_TINKER_SKIP_TRAIN !== '1') {
  const test = spawnSync(process.execPath, ['--import', 'tsx', '--test', 'test/train-tinker.local.test.ts'], {
    cwd: join(import.meta.dirname, '..'),
    encoding: 'utf8',
    env: { ...process.env, TINKER_TEST_COMPARE_UNINTERRUPTED: '1' },
  });
  const passed = (mode: string) => new RegExp(`^\\s*ok \\d+ - ${mode}:`, 'm').test(test.stdout);
  skyrlOk = passed('--compat skyrl');
  defaultOk = passed('default mode');
  console.log(
    `tiny train (kill -9 + resume, same weights as uninterrupted): default mode ${defaultOk ? 'passed' : 'FAILED'}, skyrl mode ${skyrlOk ? 'passed' : 'FAILED'}`,
  );
  if (!skyrlOk || !defaultOk) console.log(test.stdout.slice(-3000));
}

// Each round's back-to-back pair: how much the host's state (other processes) moves the ratio.
const pairRatios = times.sequential.map((t, i) => t / times.pipelined[i]!);
const result = {
  round_trip_ms: ROUND_TRIP_MS,
  roundtrips_per_step: median(roundTrips),
  step_s_pipelined: Number(median(times.pipelined).toFixed(3)),
  step_s_sequential: Number(median(times.sequential).toFixed(3)),
  step_s_in_process: Number(median(times.local).toFixed(3)),
  ratio_sequential_over_pipelined: Number((median(times.sequential) / median(times.pipelined)).toFixed(2)),
  ratio_sequential_over_pipelined_range: [Math.min(...pairRatios), Math.max(...pairRatios)].map((r) =>
    Number(r.toFixed(2)),
  ),
  ratio_pipelined_over_in_process: Number((median(times.pipelined) / median(times.local)).toFixed(2)),
  skyrl_mode_train_ok: skyrlOk,
  default_mode_train_ok: defaultOk,
};
console.log(
  `step (fwd+bwd ${SEQUENCES}×${SEQ_LEN}, optim, save, ${PROMPTS}×${SAMPLES_PER_PROMPT} samples), medians of ${ROUNDS}: ` +
    `sequential ${result.step_s_sequential} s, pipelined ${result.step_s_pipelined} s (x${result.ratio_sequential_over_pipelined}), in-process ${result.step_s_in_process} s`,
);
console.log(JSON.stringify(result));
