import type { Ragged } from './shapes.ts';

/** Importance-ratio thresholds, Tinker/SkyRL style: clip(r, low, high), e.g. 0.8 and 1.2. */
export interface ClipBounds {
  low: number;
  high: number;
}

export interface PolicyLossConfig {
  /** ppo and cispo: ratio thresholds. Default { low: 0.8, high: 1.2 } (verl clip_ratio 0.2, SkyRL's). */
  clip?: ClipBounds;
  /** ppo: dual-clip bound c > 1 for A < 0 (Ye et al. 2020); null turns it off. Default 3.0 (verl). */
  clipRatioC?: number | null;
}

export interface PolicyLossInput {
  /** log π_θ(a_t|s_t) of the policy being trained: the variable every gradient is taken against. */
  logprobs_B_T: Ragged;
  /** 1 = token is trained on, 0 = prompt/observation/padding (its loss and gradient are 0). */
  mask_B_T: Ragged;
  /** log π_old (verl `old_log_prob`, Tinker's sampling `logprobs`); ppo, importance_sampling, cispo. */
  oldLogprobs_B_T?: Ragged;
  /** Â_t; ppo, importance_sampling, cispo. */
  advantages_B_T?: Ragged;
  /** Tinker `weights` of cross_entropy. */
  weights_B_T?: Ragged;
  /** Truncated rollout-correction weights; each token's loss and gradient are multiplied by them. */
  rolloutIsWeights_B_T?: Ragged;
}

export interface PolicyLossMetrics {
  /** Fraction of trained tokens whose ratio was clipped (verl `pg_clipfrac`). */
  clipFraction: number;
  /** Fraction of trained tokens capped by dual clip (verl `pg_clipfrac_lower`). */
  clipFractionLower: number;
  /** mean of logp_old − logp over trained tokens (verl `ppo_kl`); ratio losses only. */
  ppoKl?: number;
  ratioMean?: number;
  ratioMin?: number;
  ratioMax?: number;
}

export interface PolicyLossResult {
  /** ℓ_t per token (0 where mask is 0); aggregate with `aggregateLoss`. */
  loss_B_T: number[][];
  /** ∂ℓ_t/∂logp_t, what a training engine back-propagates into the model. */
  dLossDLogprob_B_T: number[][];
  metrics: PolicyLossMetrics;
}

/** The inputs of one trained token; absent batch inputs arrive as 0 (oldLogprob, advantage) or 1 (weight). */
export interface TokenLossInput {
  logprob: number;
  oldLogprob: number;
  advantage: number;
  weight: number;
}

export interface TokenLoss {
  loss: number;
  /** ∂loss/∂logprob. */
  grad: number;
  /** The importance ratio, for ratio losses. */
  ratio?: number;
  clipped?: boolean;
  clippedLower?: boolean;
}

export interface ResolvedPolicyLossConfig {
  clip: ClipBounds;
  clipRatioC: number | null;
}

/** One per-token loss: which batch inputs it needs and its formula. */
export interface PolicyLossKernel {
  requires: readonly ('oldLogprobs_B_T' | 'advantages_B_T' | 'weights_B_T')[];
  token(x: TokenLossInput, config: ResolvedPolicyLossConfig): TokenLoss;
}
