import { importanceRatio } from './importance-ratio.ts';
import type { PolicyLossKernel } from './policy-loss-types.ts';

/**
 * CISPO (MiniMax-M1, arXiv:2506.13585), as verl's `compute_policy_loss_cispo` and SkyRL's `cispo_loss`:
 *   ℓ_t = −sg(clip(r_t, low, high)) · Â_t · logp_t,   ∂ℓ/∂logp = −clip(r_t, low, high)·Â_t
 * The stop-gradient keeps every token's gradient alive (only its weight is clipped), unlike PPO which
 * drops clipped tokens. Clipped when r ≠ clip(r) (verl's pg_clipfrac).
 */
export const cispoLoss: PolicyLossKernel = {
  requires: ['oldLogprobs_B_T', 'advantages_B_T'],
  token({ logprob, oldLogprob, advantage }, { clip }) {
    const { ratio } = importanceRatio(logprob, oldLogprob);
    const clippedRatio = Math.min(clip.high, Math.max(clip.low, ratio));
    return {
      loss: -clippedRatio * advantage * logprob,
      grad: -clippedRatio * advantage,
      ratio,
      clipped: clippedRatio !== ratio,
      clippedLower: false,
    };
  },
};
