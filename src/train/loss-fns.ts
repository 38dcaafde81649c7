import type { PolicyLossConfig } from '../rl/index.ts';
import { computePolicyLoss, policyLossConfigFromTinker } from '../rl/index.ts';
import type { ParsedDatum } from './datum.ts';
import type { LossFnConfig, LossFnType } from './engine.ts';
import { EngineInputError } from './errors.ts';

/** Per-token loss values and their derivatives with respect to the target logprob, for one datum. */
export interface TokenLosses {
  loss_T: Float64Array;
  /** dLoss/dlogprob per token: what the engine back-propagates through the model. */
  dLogprob_T: Float64Array;
  /**
   * Tokens the loss trains on (a nonzero advantage, or for cross_entropy a nonzero weight): the
   * denominator of the ratio metrics, which prompt and observation positions would otherwise drown.
   */
  trainedTokens: number;
  /** Trained tokens whose ratio was clipped (ppo, cispo), and the sum of their ratios r (0 for cross_entropy). */
  clippedTokens: number;
  ratioSum: number;
}

export const LOSS_FNS: readonly LossFnType[] = ['cross_entropy', 'importance_sampling', 'ppo', 'cispo'];

/** CISPO's thresholds default one-sided (0, 4), as the Tinker cookbook uses it; ppo's are 0.8 and 1.2. */
const CISPO_DEFAULTS = { clip_low_threshold: 0, clip_high_threshold: 4 };

/**
 * Evaluates Tinker's loss `lossFn` per token through `rl/`'s policy losses, given the model's logprobs p
 * of the target tokens. With q the sampler's logprobs, r = exp(p − q) and A the advantages:
 *   cross_entropy        −w·p
 *   importance_sampling  −r·A
 *   ppo                  −min(r·A, clip(r, low, high)·A)   (no dual clip, as Tinker)
 *   cispo                −sg(clip(r, low, high))·A·p        (sg: no gradient flows through the weight)
 * Tinker masks through zero weights or advantages, so a token with neither is left out (its loss and
 * gradient are zero either way). Missing weights are 1.
 */
export function evaluateLoss(
  lossFn: LossFnType,
  datum: ParsedDatum,
  logprobs_T: Float32Array,
  config: LossFnConfig = {},
): TokenLosses {
  if (!LOSS_FNS.includes(lossFn)) {
    throw new EngineInputError(`unknown loss_fn "${lossFn}"; use one of ${LOSS_FNS.join(', ')}`);
  }
  if (lossFn !== 'cross_entropy' && (!datum.logprobs_T || !datum.advantages_T)) {
    throw new EngineInputError(`loss_fn "${lossFn}" needs loss_fn_inputs.logprobs and advantages`);
  }
  const row = (a: Float32Array | undefined) => (a ? [Array.from(a)] : undefined);
  const by = lossFn === 'cross_entropy' ? datum.weights_T : datum.advantages_T;
  const mask = Array.from(logprobs_T, (_, t): number => (by && by[t] === 0 ? 0 : 1));
  const trainedTokens = mask.reduce((a, b) => a + b, 0);
  const result = computePolicyLoss(
    lossFn,
    {
      logprobs_B_T: [Array.from(logprobs_T)],
      mask_B_T: [mask],
      oldLogprobs_B_T: row(datum.logprobs_T),
      advantages_B_T: row(datum.advantages_T),
      weights_B_T: [datum.weights_T ? Array.from(datum.weights_T) : Array.from(logprobs_T, () => 1)],
    },
    policyConfig(lossFn, config),
  );
  return {
    loss_T: Float64Array.from(result.loss_B_T[0]!),
    dLogprob_T: Float64Array.from(result.dLossDLogprob_B_T[0]!),
    trainedTokens,
    clippedTokens: Math.round(result.metrics.clipFraction * trainedTokens),
    ratioSum: (result.metrics.ratioMean ?? 0) * trainedTokens,
  };
}

function policyConfig(lossFn: LossFnType, config: LossFnConfig): PolicyLossConfig {
  return policyLossConfigFromTinker(
    lossFn === 'cispo' ? { ...CISPO_DEFAULTS, ...definedKeys(config) } : config,
  );
}

function definedKeys(config: LossFnConfig): LossFnConfig {
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
}
