import { ConfigError } from '../errors.ts';
import type { Ragged } from './shapes.ts';

/** A sample's task: samples with equal ids form one group (verl's `index`/`uid`). */
export type GroupId = string | number;

/**
 * The outcome score of each sequence, s_b = Σ_t r_{b,t}, as verl's outcome estimators compute it: the
 * task reward sits on one token and any KL penalty in the reward is summed in with it.
 * Shape: `tokenLevelRewards_B_T` → `scores_B`.
 */
export function outcomeScores(tokenLevelRewards_B_T: Ragged): number[] {
  return tokenLevelRewards_B_T.map((row) => row.reduce((s, r) => s + r, 0));
}

/**
 * Apply a per-group estimator across a batch: gather the scores of each group id (in batch order),
 * run `perGroup(scores_G)`, and scatter the results back to batch positions. Shape: `scores_B`,
 * `groupIds_B` → `advantages_B`.
 */
export function applyPerGroup(
  scores_B: readonly number[],
  groupIds_B: readonly GroupId[],
  perGroup: (scores_G: readonly number[]) => number[],
): number[] {
  if (groupIds_B.length !== scores_B.length) {
    throw new ConfigError(
      `outcome advantages: groupIds_B has ${groupIds_B.length} entries but the batch has ` +
        `${scores_B.length} sequences; give every sequence its task's group id`,
    );
  }
  const members = new Map<GroupId, number[]>();
  groupIds_B.forEach((id, b) => {
    const list = members.get(id);
    if (list) list.push(b);
    else members.set(id, [b]);
  });
  const advantages_B = new Array<number>(scores_B.length).fill(0);
  for (const indices of members.values()) {
    const advantages_G = perGroup(indices.map((b) => scores_B[b]!));
    indices.forEach((b, g) => {
      advantages_B[b] = advantages_G[g]!;
    });
  }
  return advantages_B;
}

/** A_{b,t} = A_b · m_{b,t}: one scalar per sequence onto its trained tokens. */
export function broadcastOverTokens(advantages_B: readonly number[], mask_B_T: Ragged): number[][] {
  return mask_B_T.map((row, b) => row.map((m) => advantages_B[b]! * m));
}
