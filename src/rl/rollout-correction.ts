import { LOG_RATIO_BOUND } from './importance-ratio.ts';
import { lookupByName } from './registry.ts';
import { assertBinaryMask, assertParam, assertSameShape, type Ragged } from './shapes.ts';

export interface RolloutCorrectionInput {
  /** log π_train of the sampled tokens, recomputed by the trainer (verl `old_log_probs`). */
  trainerLogprobs_B_T: Ragged;
  /** log π_rollout as the sampler reported them (verl `rollout_log_probs`). */
  samplerLogprobs_B_T: Ragged;
  mask_B_T: Ragged;
}

export interface RolloutCorrectionOptions {
  /** `token` (biased, low variance) or `sequence` (unbiased, high variance): verl `rollout_is`, rLLM `tis_mode`. */
  level: string;
  /** Upper truncation of the weights: verl `rollout_is_threshold`, rLLM `tis_cap`. Default 2.0. */
  cap?: number;
}

export interface RolloutCorrectionMetrics {
  /** Before truncation, as verl logs them: `rollout_is_mean`, `_max`, `_min`. */
  mean: number;
  max: number;
  min: number;
  /** Share above the cap / below 1/cap (verl `rollout_is_ratio_fraction_high`/`_low`): tokens, or sequences. */
  fractionHigh: number;
  fractionLow: number;
}

export interface RolloutCorrection {
  /** Truncated weights, 0 where mask is 0; pass as `rolloutIsWeights_B_T` to the policy loss. */
  weights_B_T: number[][];
  metrics: RolloutCorrectionMetrics;
}

const clampLog = (x: number) => Math.min(LOG_RATIO_BOUND, Math.max(-LOG_RATIO_BOUND, x));

/** Per-token log ratios, and the value whose exp is each token's weight before truncation. */
type Level = (
  logRatio_B_T: number[][],
  mask_B_T: Ragged,
) => { weightLog_B_T: number[][]; unitLogs: number[] };

const levels: Record<string, Level> = {
  token: (logRatio_B_T, mask_B_T) => ({
    weightLog_B_T: logRatio_B_T.map((row) => row.map(clampLog)),
    unitLogs: logRatio_B_T.flatMap((row, b) => row.filter((_, t) => mask_B_T[b]![t] === 1)),
  }),
  sequence: (logRatio_B_T, mask_B_T) => {
    const sums = logRatio_B_T.map((row, b) => row.reduce((s, x, t) => s + x * mask_B_T[b]![t]!, 0));
    return { weightLog_B_T: logRatio_B_T.map((row, b) => row.map(() => clampLog(sums[b]!))), unitLogs: sums };
  },
};

export const rolloutCorrectionLevels: readonly string[] = Object.keys(levels);

/**
 * Truncated importance sampling between sampler and trainer (Yao et al. 2025, "Your efficient RL
 * framework secretly brings you off-policy RL training"; verl `compute_rollout_correction_weights`):
 *
 *   token:     w_t = min(exp(clamp(log π_train,t − log π_rollout,t, ±20)), C)
 *   sequence:  w_t = min(exp(clamp(Σ_t' m_t'·(log π_train,t' − log π_rollout,t'), ±20)), C)
 *
 * each × m_t, C = cap. Weights are constants (no gradient). Shapes: `_B_T` in, `weights_B_T` out.
 */
export function rolloutCorrectionWeights(
  input: RolloutCorrectionInput,
  options: RolloutCorrectionOptions,
): RolloutCorrection {
  const level = lookupByName('rollout correction level', levels, options.level);
  const what = `rollout correction "${options.level}"`;
  const cap = options.cap ?? 2.0;
  assertParam(what, 'cap', cap, cap > 0, '> 0');
  assertSameShape(
    what,
    'trainerLogprobs_B_T',
    input.trainerLogprobs_B_T,
    'samplerLogprobs_B_T',
    input.samplerLogprobs_B_T,
  );
  assertSameShape(what, 'trainerLogprobs_B_T', input.trainerLogprobs_B_T, 'mask_B_T', input.mask_B_T);
  assertBinaryMask(what, 'mask_B_T', input.mask_B_T);
  const logRatio_B_T = input.trainerLogprobs_B_T.map((row, b) =>
    row.map((lp, t) => lp - input.samplerLogprobs_B_T[b]![t]!),
  );
  const { weightLog_B_T, unitLogs } = level(logRatio_B_T, input.mask_B_T);
  const raw = weightLog_B_T.flatMap((row, b) =>
    row.filter((_, t) => input.mask_B_T[b]![t] === 1).map(Math.exp),
  );
  const weights_B_T = weightLog_B_T.map((row, b) =>
    row.map((x, t) => (input.mask_B_T[b]![t] === 1 ? Math.min(Math.exp(x), cap) : 0)),
  );
  if (raw.length === 0) {
    return { weights_B_T, metrics: { mean: 0, max: 0, min: 0, fractionHigh: 0, fractionLow: 0 } };
  }
  const share = (f: (x: number) => boolean) => unitLogs.filter(f).length / unitLogs.length;
  return {
    weights_B_T,
    metrics: {
      mean: raw.reduce((s, w) => s + w, 0) / raw.length,
      // reduce, not Math.max(...xs): a batch can hold millions of tokens, beyond the argument limit
      max: Math.exp(clampLog(unitLogs.reduce((a, x) => Math.max(a, x), Number.NEGATIVE_INFINITY))),
      min: Math.exp(clampLog(unitLogs.reduce((a, x) => Math.min(a, x), Number.POSITIVE_INFINITY))),
      fractionHigh: share((x) => x > Math.log(cap)),
      fractionLow: share((x) => x < -Math.log(cap)),
    },
  };
}
