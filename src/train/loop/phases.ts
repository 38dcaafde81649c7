import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSamplerFactory, type SamplerFactory } from '../../agent/samplers.ts';
import type { Trajectory } from '../../agent/types.ts';
import type { Config } from '../../config/index.ts';
import { ConfigError } from '../../errors.ts';
import type { ChatTemplate } from '../../llm/index.ts';
import { assembleTrajectory } from '../../rl/index.ts';
import {
  checkErrorFraction,
  exportVerlBatch,
  RolloutEngine,
  type RunSummary,
  summarize,
  TrajectoryStore,
  trajectoriesToParquet,
} from '../../rollout/index.ts';
import type { SandboxProvider } from '../../sandbox/index.ts';
import type { Task } from '../../tasks/index.ts';
import type { Datum, LossFnConfig, ScoringPolicy, TrainingEngine } from '../engine.ts';
import { datumLength, sftDatum, type TokenSequence } from './build-datums.ts';
import { engineSamplers } from './engine-samplers.ts';
import type { MetricsSink } from './metrics-log.ts';
import { replayTurnTokens } from './replay-tokens.ts';
import {
  buildRlBatch,
  type ExtraLogprobs,
  hasLearningSignal,
  nothingToTrainOn,
  type RlBatch,
  selectTrainable,
} from './rl-batch.ts';

/** What every phase of a training run works with. */
export interface RunContext {
  config: Config;
  runDir: string;
  engine: TrainingEngine;
  provider: SandboxProvider;
  metrics: MetricsSink;
  log: (line: string) => void;
  signal?: AbortSignal;
}

/** What RL needs besides the policy: the frozen reference policy and β when the reward carries a KL penalty. */
export interface KlReference {
  engine: ScoringPolicy;
  coef: number;
}

/** A seeded permutation (Fisher–Yates over mulberry32), so epochs replay identically on resume. */
export function seededOrder(n: number, seed: number): number[] {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * Greedy episodes on a task set with the current weights: the resolved rate a curve is made of. Each
 * validation has its own trajectory file, so a resumed run does not redo a finished one.
 */
export async function validate(ctx: RunContext, tasks: readonly Task[], label: string): Promise<RunSummary> {
  const config: Config = { ...ctx.config, llm: { ...ctx.config.llm, temperature: 0 } };
  const store = TrajectoryStore.open(join(ctx.runDir, 'validation', `${label}.jsonl`));
  try {
    await new RolloutEngine({
      provider: ctx.provider,
      config,
      samplers: await engineSamplers(ctx.engine, config, `${ctx.engine.getInfo().model_name}@${label}`),
      store,
      seed: ctx.config.trainer.seed,
      maxErrorFraction: ctx.config.rollout.max_error_fraction,
      label: `validation ${label}`,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    }).run(tasks, 1);
    const done = store.forTasks(tasks, 1);
    // A resolved rate over the few episodes that did not error would be a number about the provider.
    if (!ctx.signal?.aborted)
      checkErrorFraction(done, ctx.config.rollout.max_error_fraction, `validation ${label}`);
    return summarize(done);
  } finally {
    store.close();
  }
}

/** Token sequences of recorded trajectories, exactly as the token-level sampler lays them out. */
export async function sftSequences(
  trajectories: readonly Trajectory[],
  template: ChatTemplate,
  onlyResolved: boolean,
): Promise<TokenSequence[]> {
  const out: TokenSequence[] = [];
  for (const t of trajectories) {
    if (onlyResolved && t.reward !== 1) continue;
    if (!t.messages.some((m) => m.role === 'assistant')) continue;
    out.push(assembleTrajectory(await replayTurnTokens(t.messages, template)));
  }
  return out;
}

/** Splits data into engine calls of at most `maxTokens` input tokens; gradients accumulate across them. */
function chunks(data: Datum[], maxTokens: number): Datum[][] {
  const out: Datum[][] = [];
  let cur: Datum[] = [];
  let tokens = 0;
  for (const d of data) {
    const n = datumLength(d);
    if (cur.length && tokens + n > maxTokens) {
      out.push(cur);
      cur = [];
      tokens = 0;
    }
    cur.push(d);
    tokens += n;
  }
  if (cur.length) out.push(cur);
  return out;
}

export interface PhaseProgress {
  /** Optimizer steps already done in this phase (from a checkpoint). */
  startStep: number;
  /** Called after each step; returns when the step's checkpoint (if any) is written. */
  afterStep: (step: number, last: boolean) => Promise<void>;
}

/**
 * Supervised fine-tuning: cross-entropy on the model's own tokens (mask 1) of each sequence, the mean over a
 * batch's model tokens, `sft.batch_size` sequences per step, `sft.epochs` seeded epochs.
 */
export async function runSft(
  ctx: RunContext,
  seqs: readonly TokenSequence[],
  p: PhaseProgress,
): Promise<void> {
  const { sft, trainer, actor } = ctx.config;
  const perEpoch = Math.ceil(seqs.length / sft.batch_size);
  const total = perEpoch * sft.epochs;
  for (let step = p.startStep + 1; step <= total && !ctx.signal?.aborted; step++) {
    const epoch = Math.floor((step - 1) / perEpoch);
    const order = seededOrder(seqs.length, trainer.seed * 7919 + epoch);
    const i = (step - 1) % perEpoch;
    const batch = order.slice(i * sft.batch_size, (i + 1) * sft.batch_size).map((j) => seqs[j]!);
    const modelTokens = batch.reduce((n, s) => n + s.responseMask.reduce((a, b) => a + b, 0), 0);
    const t0 = performance.now();
    let loss = 0;
    let tokens = 0;
    for (const part of chunks(
      batch.map((s) => sftDatum(s, 1 / modelTokens)),
      actor.ppo_max_token_len_per_gpu,
    )) {
      const fb = await ctx.engine.forwardBackward(part, 'cross_entropy');
      loss += fb.metrics['loss:sum'] ?? 0;
      tokens += fb.metrics['tokens:sum'] ?? 0;
    }
    const opt = await ctx.engine.optimStep({
      learning_rate: sftLearningRate(sft, step, total),
      grad_clip_norm: actor.grad_clip,
    });
    const seconds = (performance.now() - t0) / 1000;
    await ctx.metrics.log(step, {
      'sft/loss': loss,
      'sft/epoch': epoch + (i + 1) / perEpoch,
      'sft/grad_norm': opt.metrics.grad_norm ?? 0,
      'sft/lr': sftLearningRate(sft, step, total),
      'perf/tokens_per_s': tokens / seconds,
    });
    if (step % 10 === 0 || step === total) {
      ctx.log(`sft step ${step}/${total} (epoch ${epoch + 1}/${sft.epochs}) loss ${loss.toFixed(4)}`);
    }
    await p.afterStep(step, step === total);
  }
}

/** The learning rate of SFT step `step` (1-based) of `total`. */
export function sftLearningRate(sft: Config['sft'], step: number, total: number): number {
  if (sft.lr_schedule === 'constant') return sft.lr;
  return (sft.lr * (1 + Math.cos((Math.PI * (step - 1)) / total))) / 2;
}

/** Each step's rollouts as Parquet beside the JSONL store: the trajectory table and verl's batch layout. */
function writeStepParquet(ctx: RunContext, step: number, trajectories: Trajectory[], batch: RlBatch): void {
  const base = join(ctx.runDir, 'rollouts', `step-${String(step).padStart(6, '0')}`);
  writeFileSync(`${base}.parquet`, Buffer.from(trajectoriesToParquet(trajectories)));
  if (batch.samples.length === 0) return;
  const lengths = batch.samples.map((s) => [s.promptIds.length, s.responseIds.length]);
  const verl = exportVerlBatch(batch.samples, {
    maxPromptLength: Math.max(...lengths.map(([p]) => p!)),
    maxResponseLength: Math.max(...lengths.map(([, r]) => r!)),
    padTokenId: ctx.engine.getTokenizer().specialTokens['<|pad|>'] ?? 0,
  });
  writeFileSync(`${base}.verl.parquet`, Buffer.from(verl));
}

export function rlLossConfig(config: Config): LossFnConfig | undefined {
  if (config.actor.loss_fn !== 'ppo') return undefined;
  return {
    clip_low_threshold: 1 - config.actor.clip_ratio_low,
    clip_high_threshold: 1 + config.actor.clip_ratio_high,
  };
}

/**
 * One policy-gradient step: `data.train_batch_size` tasks × `rollout.n` episodes sampled by the current
 * weights (kept in `rollouts/step-N.jsonl`, so a killed step resumes its finished episodes), turned into
 * datums by `buildRlBatch`, then forward_backward and optim_step.
 */
export async function rlStep(
  ctx: RunContext,
  tasks: readonly Task[],
  step: number,
  kl?: KlReference,
): Promise<Record<string, number>> {
  const { config, engine } = ctx;
  const t0 = performance.now();
  const store = TrajectoryStore.open(
    join(ctx.runDir, 'rollouts', `step-${String(step).padStart(6, '0')}.jsonl`),
  );
  let trajectories: Trajectory[];
  let stats: Record<string, number>;
  try {
    const result = await new RolloutEngine({
      provider: ctx.provider,
      config,
      samplers: await rolloutSamplers(ctx, step),
      store,
      seed: config.trainer.seed * 100_003 + step,
      maxErrorFraction: config.rollout.max_error_fraction,
      label: `rl step ${step}`,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    }).run(tasks, config.rollout.n);
    trajectories = store.forTasks(tasks, config.rollout.n);
    stats = { 'rollout/retries': result.stats.retries, 'rollout/errors': result.stats.errors };
  } finally {
    store.close();
  }
  if (ctx.signal?.aborted) return {};
  checkErrorFraction(trajectories, config.rollout.max_error_fraction, `rl step ${step}`);
  const t1 = performance.now();
  const trainable = selectTrainable(trajectories, config, engine.getInfo().max_seq_len);
  if (trainable.kept.length === 0) throw nothingToTrainOn(step, trajectories, trainable.metrics);
  const seqs = trainable.kept.map((k) => k.seq);
  const extra: ExtraLogprobs = {};
  if (kl && seqs.length) {
    extra.ref_B_T = await responseLogprobs(kl.engine, seqs, config.actor.ppo_max_token_len_per_gpu);
    extra.klCoef = kl.coef;
  }
  if (config.algorithm.rollout_correction.tis_mode !== 'none' && seqs.length) {
    extra.trainer_B_T = await responseLogprobs(engine, seqs, config.actor.ppo_max_token_len_per_gpu);
  }
  const batch = buildRlBatch(trainable, config, extra);
  writeStepParquet(ctx, step, trajectories, batch);
  let loss = 0;
  let tokens = 0;
  let ratio = 0;
  let clipped = 0;
  let gradNorm = 0;
  const parts = chunks(batch.datums, config.actor.ppo_max_token_len_per_gpu);
  // Every advantage zero (each group's rewards equal: all solved or all failed): the loss has no gradient,
  // but an optimizer step would still move the weights (Adam's momentum, weight decay). Skip it, and say so.
  const noSignal = !hasLearningSignal(batch);
  if (noSignal) {
    ctx.log(
      `rl step ${step}: no learning signal (every group's ${config.rollout.n} rewards were equal); update skipped`,
    );
  }
  // Each epoch is one optimizer step on the whole batch; the old logprobs stay the sampler's, so later
  // epochs are off-policy and the PPO clip bounds how far they move.
  for (let epoch = 0; epoch < config.actor.ppo_epochs && !noSignal; epoch++) {
    for (const part of parts) {
      const fb = await engine.forwardBackward(part, config.actor.loss_fn, rlLossConfig(config));
      if (epoch === 0) {
        loss += fb.metrics['loss:sum'] ?? 0;
        tokens += fb.metrics['tokens:sum'] ?? 0;
      }
      ratio += (fb.metrics['ratio:mean'] ?? 1) / parts.length / config.actor.ppo_epochs;
      clipped += (fb.metrics['clip_fraction:mean'] ?? 0) / parts.length / config.actor.ppo_epochs;
    }
    const opt = await engine.optimStep({
      learning_rate: config.actor.lr,
      weight_decay: config.actor.weight_decay,
      grad_clip_norm: config.actor.grad_clip,
    });
    gradNorm = opt.metrics.grad_norm ?? 0;
  }
  const t2 = performance.now();
  const summary = summarize(trajectories);
  return {
    ...batch.metrics,
    ...stats,
    'rl/no_signal': noSignal ? 1 : 0,
    'reward/resolved_rate': summary.resolvedRate,
    'actor/loss': loss,
    'actor/ratio_mean': ratio,
    'actor/clip_fraction': clipped,
    'actor/grad_norm': gradNorm,
    'perf/rollout_s': (t1 - t0) / 1000,
    'perf/train_s': (t2 - t1) / 1000,
    'perf/tokens_per_s': (tokens * config.actor.ppo_epochs) / Math.max(1e-9, (t2 - t1) / 1000),
  };
}

/**
 * Who samples RL episodes: the engine being trained (on-policy), or with `llm.backend=tokens` a vLLM/SGLang
 * server whose token ids and logprobs train the engine (off-policy unless the server is kept in sync with
 * the weights; the PPO ratio against its logprobs corrects for the gap). A chat API gives no token ids.
 */
async function rolloutSamplers(ctx: RunContext, step: number): Promise<SamplerFactory> {
  const { config, engine } = ctx;
  if (config.llm.backend === 'tokens' || config.llm.backend === 'hf') return createSamplerFactory(config);
  if (config.llm.backend === 'openai') {
    throw new ConfigError(
      'llm.backend=openai gives no token ids to train on: RL samples with the engine being trained, or ' +
        'with llm.backend=tokens from a vLLM/SGLang /v1/completions server',
    );
  }
  return engineSamplers(engine, config, `${engine.getInfo().model_name}@rl-${step}`);
}

/** Each sequence's logprobs of its response tokens under `engine`'s current weights (a forward pass). */
async function responseLogprobs(
  engine: ScoringPolicy,
  seqs: readonly TokenSequence[],
  maxTokens: number,
): Promise<number[][]> {
  const out: number[][] = [];
  let i = 0;
  for (const part of chunks(
    seqs.map((q) => sftDatum(q)),
    maxTokens,
  )) {
    const fwd = await engine.forward(part, 'cross_entropy');
    for (const o of fwd.loss_fn_outputs) {
      // Target position j predicts token j + 1: the response starts at target promptIds.length − 1.
      out.push(o.logprobs.data.slice(seqs[i]!.promptIds.length - 1));
      i++;
    }
  }
  return out;
}
