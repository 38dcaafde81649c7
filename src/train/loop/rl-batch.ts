import type { Trajectory } from '../../agent/types.ts';
import type { Config } from '../../config/index.ts';
import { SandgymError } from '../../errors.ts';
import {
  aggregateLoss,
  applyKlPenalty,
  assembleTrajectory,
  computeAdvantages,
  estimateKl,
  placeOutcomeReward,
  rolloutCorrectionWeights,
} from '../../rl/index.ts';
import type { Datum } from '../engine.ts';
import { rlDatum, type TokenSequence } from './build-datums.ts';

/** Why a trajectory does not train: each is counted in the step's metrics. */
export type ExclusionReason =
  /** An infrastructure fault (or a grade that failed): masked, never scored 0. */
  | 'error'
  /** compact filtering: a budget ended it (max_steps, token_budget, timeout). */
  | 'filtered'
  /** A turn's prompt did not extend the previous prompt + completion (re-tokenization drift). */
  | 'token_mismatch'
  /** The sampler gave no token ids (a chat API without them): nothing exact to train on. */
  | 'no_tokens'
  /** Longer than the model's context. */
  | 'too_long';

/** A trajectory that trains, with what its datum was made of (for exports such as verl's layout). */
export interface RlSample extends TokenSequence {
  taskId: string;
  sample: number;
  reward: number;
  /** Per response token, before the loss-aggregation weight. */
  advantages: number[];
  logprobs: number[];
}

export interface RlBatch {
  datums: Datum[];
  samples: RlSample[];
  metrics: Record<string, number>;
}

const FILTERS = {
  max_steps: 'mask_max_turns_exceeded',
  token_budget: 'mask_max_response_length_exceeded',
  timeout: 'mask_timeout',
} as const;

function exclusion(
  t: Trajectory,
  config: Config,
  maxSeqLen: number,
): ExclusionReason | (TokenSequence & { logprobs: number[] }) {
  if (t.termination === 'error' || t.reward === null) return 'error';
  const cf = config.rollout.compact_filtering;
  const filter = FILTERS[t.termination as keyof typeof FILTERS];
  if (cf.enable && filter && cf[filter]) return 'filtered';
  const turns = t.turns.map((turn) => turn.tokens);
  if (turns.length === 0 || turns.some((x) => x === undefined)) return 'no_tokens';
  const a = assembleTrajectory(turns.map((x) => x!));
  if (!a.valid) return 'token_mismatch';
  if (a.promptIds.length + a.responseIds.length > maxSeqLen + 1) return 'too_long';
  return { ...a, logprobs: a.responseLogprobs ?? a.responseIds.map(() => 0) };
}

/** A step's trajectories split into those that train (assembled token-exact) and counts of the rest. */
export interface TrainableSet {
  kept: { t: Trajectory; seq: TokenSequence & { logprobs: number[] } }[];
  metrics: Record<string, number>;
}

/**
 * The trajectories that train: masked ones (errors, compact filtering, token drift, overlong) are left out
 * of both the loss and the group baselines, and counted.
 */
export function selectTrainable(
  trajectories: readonly Trajectory[],
  config: Config,
  maxSeqLen: number,
): TrainableSet {
  const counts: Record<ExclusionReason, number> = {
    error: 0,
    filtered: 0,
    token_mismatch: 0,
    no_tokens: 0,
    too_long: 0,
  };
  const kept: TrainableSet['kept'] = [];
  for (const t of trajectories) {
    const r = exclusion(t, config, maxSeqLen);
    if (typeof r === 'string') counts[r]++;
    else kept.push({ t, seq: r });
  }
  return {
    kept,
    metrics: {
      'rollout/trajectories': trajectories.length,
      'rollout/trained': kept.length,
      ...Object.fromEntries(Object.entries(counts).map(([k, v]) => [`rollout/masked_${k}`, v])),
    },
  };
}

/** Per kept trajectory and response token, logprobs the step computed beyond the sampler's. */
export interface ExtraLogprobs {
  /** log π_ref: with `algorithm.use_kl_in_reward`, β·KL(sampler ‖ ref) per token comes off the reward. */
  ref_B_T?: number[][];
  /** β of that penalty (the KL controller's current value). */
  klCoef?: number;
  /** log π of the trainer before the update: with `rollout_correction.tis_mode`, truncated IS weights. */
  trainer_B_T?: number[][];
}

/**
 * A training step's datums: outcome rewards (less the KL penalty, when on) turned into per-token
 * advantages by `algorithm.adv_estimator` within each task's group, times the rollout-correction weight
 * (when on) and the `actor.loss_agg_mode` weight — since Tinker-style losses are sums, the engine then
 * computes exactly the aggregated loss.
 */
export function buildRlBatch(set: TrainableSet, config: Config, extra: ExtraLogprobs = {}): RlBatch {
  const { kept } = set;
  const metrics = { ...set.metrics };
  if (kept.length === 0) return { datums: [], samples: [], metrics };

  const mask_B_T = kept.map((k) => [...k.seq.responseMask]);
  const sampler_B_T = kept.map((k) => k.seq.logprobs);
  const rewards = kept.map((k) => k.t.reward!);
  let tokenLevelRewards_B_T = kept.map((k, b) => placeOutcomeReward(k.seq.responseMask, rewards[b]!));
  if (extra.ref_B_T) {
    const { kl_B_T } = estimateKl(config.algorithm.kl_penalty, sampler_B_T, extra.ref_B_T);
    const beta = extra.klCoef ?? config.algorithm.kl_ctrl.kl_coef;
    const penalized = applyKlPenalty(tokenLevelRewards_B_T, kl_B_T, beta, mask_B_T);
    tokenLevelRewards_B_T = penalized.tokenLevelRewards_B_T;
    metrics['kl/observed'] = penalized.observedKl;
    metrics['kl/coef'] = beta;
  }
  const { advantages_B_T } = computeAdvantages(
    config.algorithm.adv_estimator,
    {
      tokenLevelRewards_B_T,
      responseMask_B_T: mask_B_T,
      groupIds_B: kept.map((k) => k.t.taskId),
    },
    {
      normByStd: config.algorithm.norm_adv_by_std_in_grpo,
      gamma: config.algorithm.gamma,
      lam: config.algorithm.lam,
    },
  );
  let isWeight_B_T: number[][] | undefined;
  if (extra.trainer_B_T) {
    const rc = config.algorithm.rollout_correction;
    const correction = rolloutCorrectionWeights(
      { trainerLogprobs_B_T: extra.trainer_B_T, samplerLogprobs_B_T: sampler_B_T, mask_B_T },
      { level: rc.tis_mode, cap: rc.tis_cap },
    );
    isWeight_B_T = correction.weights_B_T;
    metrics['rollout_is/mean'] = correction.metrics.mean;
    metrics['rollout_is/fraction_high'] = correction.metrics.fractionHigh;
  }
  const { weight_B_T } = aggregateLoss(
    config.actor.loss_agg_mode,
    mask_B_T.map((m) => m.map(() => 0)),
    mask_B_T,
    { lossScaleFactor: config.data.max_response_length },
  );
  const datums = kept.map((k, b) =>
    rlDatum(
      k.seq,
      advantages_B_T[b]!.map((a, t) => a * weight_B_T[b]![t]! * (isWeight_B_T?.[b]?.[t] ?? 1)),
      k.seq.logprobs,
    ),
  );
  const samples = kept.map((k, b) => ({
    ...k.seq,
    taskId: k.t.taskId,
    sample: k.t.sample,
    reward: rewards[b]!,
    advantages: advantages_B_T[b]!,
  }));
  const responseLengths = kept.map((k) => k.seq.responseIds.length);
  metrics['reward/mean'] = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  metrics['response_length/mean'] = responseLengths.reduce((a, b) => a + b, 0) / responseLengths.length;
  metrics['advantage/nonzero_fraction'] =
    advantages_B_T.flat().filter((a) => a !== 0).length /
    Math.max(1, mask_B_T.flat().filter((m) => m === 1).length);
  return { datums, samples, metrics };
}

/** A step whose every episode was masked: training would silently do nothing, so the run stops and says why. */
export function nothingToTrainOn(
  step: number,
  trajectories: readonly Trajectory[],
  metrics: Record<string, number>,
): SandgymError {
  const masked = Object.entries(metrics)
    .filter(([k, v]) => k.startsWith('rollout/masked_') && v > 0)
    .map(([k, v]) => `${k.slice('rollout/masked_'.length)} ${v}`)
    .join(', ');
  const details = new Map<string, number>();
  for (const t of trajectories) if (t.detail) details.set(t.detail, (details.get(t.detail) ?? 0) + 1);
  const top = [...details].sort((a, b) => b[1] - a[1])[0];
  return new SandgymError(
    `rl step ${step}: nothing to train on: all ${trajectories.length} episodes were masked (${masked || 'none ran'})` +
      `${top ? `; most common ending (${top[1]}×): ${top[0]}` : ''}. Check the budgets against the model ` +
      '(data.max_prompt_length, data.max_response_length, the engine context) with "sandgym train --dry-run"',
  );
}

/**
 * Whether a batch can move the weights: some advantage is nonzero. When every group's rewards were equal
 * (all solved or all failed) the loss has no gradient, yet an optimizer step would still move the weights
 * (Adam's momentum, weight decay): such a step skips its update.
 */
export function hasLearningSignal(batch: RlBatch): boolean {
  return batch.samples.some((x) => x.advantages.some((a) => a !== 0));
}
