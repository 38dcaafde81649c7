import { estimateKl } from './kl-estimators.ts';
import { assertBinaryMask, assertSameShape, type Ragged } from './shapes.ts';

export interface KlPenaltyResult {
  /** r_t = s_t − β·KL_t·m_t (verl `token_level_rewards`). */
  tokenLevelRewards_B_T: number[][];
  /** mean over sequences of the per-sequence masked mean KL: the value the KL controller is fed. */
  observedKl: number;
}

/**
 * KL in the reward, verl's `apply_kl_penalty` (Ziegler et al. 2019; Ouyang et al. 2022):
 *   r_t = s_t − β · KL_t · m_t,   observedKl = mean_b( Σ_t KL·m / (Σ_t m + 1e-8) )
 * `kl_B_T` comes from `estimateKl(algorithm.kl_penalty, oldLogprobs, refLogprobs)`; no gradient flows here.
 * Shapes: `tokenLevelScores_B_T`, `kl_B_T`, `mask_B_T` → `tokenLevelRewards_B_T`.
 */
export function applyKlPenalty(
  tokenLevelScores_B_T: Ragged,
  kl_B_T: Ragged,
  beta: number,
  mask_B_T: Ragged,
): KlPenaltyResult {
  assertSameShape('applyKlPenalty', 'tokenLevelScores_B_T', tokenLevelScores_B_T, 'kl_B_T', kl_B_T);
  assertSameShape('applyKlPenalty', 'tokenLevelScores_B_T', tokenLevelScores_B_T, 'mask_B_T', mask_B_T);
  assertBinaryMask('applyKlPenalty', 'mask_B_T', mask_B_T);
  const tokenLevelRewards_B_T = tokenLevelScores_B_T.map((row, b) =>
    row.map((s, t) => s - beta * kl_B_T[b]![t]! * mask_B_T[b]![t]!),
  );
  let sumOfMeans = 0;
  kl_B_T.forEach((row, b) => {
    const mask_T = mask_B_T[b]!;
    const count = mask_T.reduce((s, m) => s + m, 0);
    sumOfMeans += row.reduce((s, k, t) => s + k * mask_T[t]!, 0) / (count + 1e-8);
  });
  return { tokenLevelRewards_B_T, observedKl: kl_B_T.length === 0 ? 0 : sumOfMeans / kl_B_T.length };
}

export interface KlLossResult {
  /** coef · KL_t on trained tokens, 0 elsewhere; aggregate with the policy loss's mode. */
  loss_B_T: number[][];
  /** ∂loss_t/∂logp_t. */
  dLossDLogprob_B_T: number[][];
}

/**
 * KL as a loss term, verl's `actor.use_kl_loss`: loss_t = coef · KL_t(logp_t, ref_t) · m_t with the
 * estimator `kl_loss_type` (default low_var_kl) and `kl_loss_coef` (default 0.001). Aggregation is
 * linear, so adding this per token to the policy loss before aggregating equals verl's sum of the two
 * aggregates. Shapes: `_B_T` in and out.
 */
export function klLoss(
  name: string,
  logprobs_B_T: Ragged,
  refLogprobs_B_T: Ragged,
  mask_B_T: Ragged,
  coef: number,
): KlLossResult {
  assertSameShape(`KL loss "${name}"`, 'logprobs_B_T', logprobs_B_T, 'mask_B_T', mask_B_T);
  assertBinaryMask(`KL loss "${name}"`, 'mask_B_T', mask_B_T);
  const { kl_B_T, dKlDLogprob_B_T } = estimateKl(name, logprobs_B_T, refLogprobs_B_T);
  return {
    loss_B_T: kl_B_T.map((row, b) => row.map((k, t) => (mask_B_T[b]![t] ? coef * k : 0))),
    dLossDLogprob_B_T: dKlDLogprob_B_T.map((row, b) => row.map((g, t) => (mask_B_T[b]![t] ? coef * g : 0))),
  };
}
