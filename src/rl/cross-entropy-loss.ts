import type { PolicyLossKernel } from './policy-loss-types.ts';

/**
 * Tinker's `cross_entropy` (supervised fine-tuning, SkyRL `cross_entropy_loss`): the weighted negative
 * log-likelihood of the target token,  ℓ_t = −w_t·logp_t,  ∂ℓ/∂logp = −w_t.
 */
export const crossEntropyLoss: PolicyLossKernel = {
  requires: ['weights_B_T'],
  token({ logprob, weight }) {
    return { loss: -weight * logprob, grad: -weight };
  },
};
