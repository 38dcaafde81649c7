import { importanceRatio } from './importance-ratio.ts';
import type { PolicyLossKernel } from './policy-loss-types.ts';

/**
 * Tinker's `importance_sampling` loss (SkyRL `importance_sampling_loss`), the off-policy REINFORCE
 * surrogate:  ℓ_t = −r_t·Â_t,  r_t = exp(clamp(logp_t − logp_sampler,t, ±20)),  ∂ℓ/∂logp = −Â_t·r_t.
 * At r = 1 its gradient is the policy gradient −Â·∇logp.
 */
export const importanceSamplingLoss: PolicyLossKernel = {
  requires: ['oldLogprobs_B_T', 'advantages_B_T'],
  token({ logprob, oldLogprob, advantage }) {
    const { ratio, dRatio } = importanceRatio(logprob, oldLogprob);
    return {
      loss: -advantage * ratio,
      grad: -advantage * dRatio,
      ratio,
      clipped: false,
      clippedLower: false,
    };
  },
};
