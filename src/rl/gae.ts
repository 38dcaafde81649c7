import { maskedWhiten } from './masked-whiten.ts';
import type { Ragged } from './shapes.ts';

export interface GaeInput {
  /** r_t per response token (outcome reward on the last model token, KL penalty if in the reward). */
  tokenLevelRewards_B_T: Ragged;
  /** V(s_t) from the critic, one per response token. */
  values_B_T: Ragged;
  /** 1 = model token, 0 = observation/tool token (skipped). */
  responseMask_B_T: Ragged;
}

export interface TokenAdvantages {
  /** Whitened over the batch's model tokens, × mask. */
  advantages_B_T: number[][];
  /** Targets before whitening (value-loss targets for GAE), × mask. */
  returns_B_T: number[][];
}

/**
 * Generalized Advantage Estimation (Schulman et al. 2016, arXiv:1506.02438), as verl's
 * `compute_gae_advantage_return`, over model tokens only:
 *
 *   δ_t = r_t + γ·V_{t'} − V_t,   Â_t = δ_t + γλ·Â_{t'},   R_t = Â_t + V_t
 *
 * where t' is the next token with mask 1: observation tokens (mask 0) are skipped, carrying V and Â
 * through them undiscounted, so an episode's turns chain as one decision sequence and rewards on
 * observation tokens are ignored. Past the last model token V = Â = 0. Â is then whitened over every
 * model token of the batch (`maskedWhiten`). Shapes: `_B_T` in, `_B_T` out.
 */
export function gaeAdvantages(input: GaeInput, gamma: number, lam: number): TokenAdvantages {
  const raw_B_T = input.responseMask_B_T.map((mask_T, b) => {
    const rewards_T = input.tokenLevelRewards_B_T[b]!;
    const values_T = input.values_B_T[b]!;
    const raw_T = new Array<number>(mask_T.length).fill(0);
    let nextValue = 0;
    let lastGaeLam = 0;
    for (let t = mask_T.length - 1; t >= 0; t--) {
      if (mask_T[t] !== 0) {
        const delta = rewards_T[t]! + gamma * nextValue - values_T[t]!;
        lastGaeLam = delta + gamma * lam * lastGaeLam;
        nextValue = values_T[t]!;
      }
      raw_T[t] = lastGaeLam;
    }
    return raw_T;
  });
  const mask_B_T = input.responseMask_B_T;
  const whitened_B_T = maskedWhiten(raw_B_T, mask_B_T);
  return {
    advantages_B_T: whitened_B_T.map((row, b) => row.map((a, t) => a * mask_B_T[b]![t]!)),
    returns_B_T: raw_B_T.map((row, b) =>
      row.map((a, t) => (a + input.values_B_T[b]![t]!) * mask_B_T[b]![t]!),
    ),
  };
}
