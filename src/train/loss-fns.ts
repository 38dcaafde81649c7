import type { ParsedDatum } from './datum.ts';
import type { LossFnConfig, LossFnType } from './engine.ts';
import { EngineInputError } from './errors.ts';

/** Per-token loss values and their derivatives with respect to the target logprob, for one datum. */
export interface TokenLosses {
  loss_T: Float64Array;
  /** dLoss/dlogprob per token: what the engine back-propagates through the model. */
  dLogprob_T: Float64Array;
}

export const LOSS_FNS: readonly LossFnType[] = ['cross_entropy', 'importance_sampling', 'ppo', 'cispo'];

const CLIP_DEFAULTS: Partial<Record<LossFnType, { low: number; high: number }>> = {
  ppo: { low: 0.8, high: 1.2 },
  cispo: { low: 0, high: 4 },
};

/**
 * Evaluates Tinker's loss `lossFn` per token, given the model's logprobs p of the target tokens.
 * With q the sampler's logprobs, r = exp(p − q) and A the advantages:
 *   cross_entropy        −w·p
 *   importance_sampling  −r·A
 *   ppo                  −min(r·A, clip(r, low, high)·A)
 *   cispo                −sg(clip(r, low, high))·A·p   (sg: no gradient flows through the weight)
 */
export function evaluateLoss(
  lossFn: LossFnType,
  datum: ParsedDatum,
  logprobs_T: Float32Array,
  config: LossFnConfig = {},
): TokenLosses {
  const T = logprobs_T.length;
  const loss_T = new Float64Array(T);
  const dLogprob_T = new Float64Array(T);
  if (lossFn === 'cross_entropy') {
    for (let t = 0; t < T; t++) {
      const w = datum.weights_T ? datum.weights_T[t]! : 1;
      loss_T[t] = -w * logprobs_T[t]!;
      dLogprob_T[t] = -w;
    }
    return { loss_T, dLogprob_T };
  }
  if (!LOSS_FNS.includes(lossFn)) {
    throw new EngineInputError(`unknown loss_fn "${lossFn}"; use one of ${LOSS_FNS.join(', ')}`);
  }
  const { logprobs_T: q, advantages_T: adv } = datum;
  if (!q || !adv)
    throw new EngineInputError(`loss_fn "${lossFn}" needs loss_fn_inputs.logprobs and advantages`);
  const clip = clipRange(lossFn, config);
  for (let t = 0; t < T; t++) {
    const p = logprobs_T[t]!;
    const a = adv[t]!;
    const r = Math.exp(p - q[t]!);
    if (lossFn === 'importance_sampling') {
      loss_T[t] = -r * a;
      dLogprob_T[t] = -r * a;
    } else if (lossFn === 'ppo') {
      const unclipped = r * a;
      const clipped = Math.min(Math.max(r, clip.low), clip.high) * a;
      loss_T[t] = -Math.min(unclipped, clipped);
      dLogprob_T[t] = unclipped <= clipped ? -r * a : 0;
    } else {
      const w = Math.min(Math.max(r, clip.low), clip.high) * a;
      loss_T[t] = -w * p;
      dLogprob_T[t] = -w;
    }
  }
  return { loss_T, dLogprob_T };
}

function clipRange(lossFn: LossFnType, config: LossFnConfig): { low: number; high: number } {
  const defaults = CLIP_DEFAULTS[lossFn] ?? { low: 0, high: Number.POSITIVE_INFINITY };
  const low = config.clip_low_threshold ?? defaults.low;
  const high = config.clip_high_threshold ?? defaults.high;
  if (!(low >= 0 && high >= low)) {
    throw new EngineInputError(
      `loss_fn_config for ${lossFn}: need 0 ≤ clip_low_threshold ≤ clip_high_threshold (ratios), got ${low} and ${high}`,
    );
  }
  return { low, high };
}
