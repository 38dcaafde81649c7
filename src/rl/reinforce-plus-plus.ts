import type { TokenAdvantages } from './gae.ts';
import { maskedWhiten } from './masked-whiten.ts';
import type { Ragged } from './shapes.ts';

/**
 * REINFORCE++ (Hu 2025, arXiv:2501.03262), as verl's `compute_reinforce_plus_plus_outcome_advantage`:
 *
 *   G_t = r_t + γ·G_{t'},   A = masked_whiten(G) over every model token of the batch
 *
 * where t' is the next model token (mask 1). verl resets G at every mask-0 token ("reset after EOS"),
 * which for single-turn data — ones then padding — is the same thing; for multi-turn data it would cut
 * the outcome reward off at the first tool observation, so here observation tokens are skipped
 * (carried through undiscounted, their rewards ignored), exactly as verl's GAE treats them.
 * Shapes: `tokenLevelRewards_B_T`, `responseMask_B_T` → advantages and returns `_B_T`, × mask.
 */
export function reinforcePlusPlusAdvantages(
  tokenLevelRewards_B_T: Ragged,
  responseMask_B_T: Ragged,
  gamma: number,
): TokenAdvantages {
  const returns_B_T = responseMask_B_T.map((mask_T, b) => {
    const rewards_T = tokenLevelRewards_B_T[b]!;
    const returns_T = new Array<number>(mask_T.length).fill(0);
    let runningReturn = 0;
    for (let t = mask_T.length - 1; t >= 0; t--) {
      if (mask_T[t] === 0) continue;
      runningReturn = rewards_T[t]! + gamma * runningReturn;
      returns_T[t] = runningReturn;
    }
    return returns_T;
  });
  const whitened_B_T = maskedWhiten(returns_B_T, responseMask_B_T);
  return {
    advantages_B_T: whitened_B_T.map((row, b) => row.map((a, t) => a * responseMask_B_T[b]![t]!)),
    returns_B_T,
  };
}
