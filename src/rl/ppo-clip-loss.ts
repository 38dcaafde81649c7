import { importanceRatio } from './importance-ratio.ts';
import type { PolicyLossKernel } from './policy-loss-types.ts';

/**
 * PPO clipped surrogate (Schulman et al. 2017, arXiv:1707.06347) with asymmetric bounds (DAPO
 * clip-higher, Yu et al. 2025) and dual clip (Ye et al. 2020, arXiv:1912.09729), as verl's
 * `compute_policy_loss_vanilla`; Tinker/SkyRL's `ppo` is the same formula with clipRatioC = null.
 *
 *   r_t = exp(clamp(logp_t − logp_old,t, ±20))
 *   ℓ_t = max(−Â_t·r_t, −Â_t·clip(r_t, low, high))            (low = 1 − clip_ratio_low, high = 1 + clip_ratio_high)
 *   if Â_t < 0 and clipRatioC ≠ null:  ℓ_t = min(ℓ_t, −Â_t·c)
 *
 * ∂ℓ/∂logp follows the branch taken: −Â·r on the unclipped branch, 0 where the ratio is clipped or
 * the dual-clip cap applies (r sits inside the clamp's bounds inclusive, as torch.clamp).
 */
export const ppoClipLoss: PolicyLossKernel = {
  requires: ['oldLogprobs_B_T', 'advantages_B_T'],
  token({ logprob, oldLogprob, advantage }, { clip, clipRatioC }) {
    const { ratio, dRatio } = importanceRatio(logprob, oldLogprob);
    const clippedRatio = Math.min(clip.high, Math.max(clip.low, ratio));
    const dClippedRatio = ratio >= clip.low && ratio <= clip.high ? dRatio : 0;
    const unclippedLoss = -advantage * ratio;
    const clippedLoss = -advantage * clippedRatio;
    const clipped = clippedLoss > unclippedLoss;
    let loss = clipped ? clippedLoss : unclippedLoss;
    let grad = -advantage * (clipped ? dClippedRatio : dRatio);
    let clippedLower = false;
    if (clipRatioC !== null && advantage < 0 && loss > -advantage * clipRatioC) {
      clippedLower = true;
      loss = -advantage * clipRatioC;
      grad = 0;
    }
    return { loss, grad, ratio, clipped, clippedLower };
  },
};
