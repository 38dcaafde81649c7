/**
 * Outcome-level advantages of one group: the `rollout.n` samples of one task, one scalar score each
 * (`scores_G` → `advantages_G`). The batch runner in `outcome-advantages.ts` groups, then broadcasts.
 */

export interface GroupAdvantageOptions {
  /** GRPO only: divide by the group's std (true, GRPO) or not (false, Dr.GRPO). Default true. */
  normByStd?: boolean;
  /** GRPO only: added to the std before dividing. Default 1e-6, as verl and rLLM. */
  epsilon?: number;
  /**
   * A group of one sample has no baseline to compare with. `'zero'` (default) gives it advantage 0, so a
   * lone sample teaches nothing; `'raw'` reproduces verl and rLLM, which use mean 0 and std 1 and so
   * train on the raw score.
   */
  singletonGroup?: 'zero' | 'raw';
}

function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/**
 * GRPO (Shao et al. 2024, DeepSeekMath, arXiv:2402.03300), verl `compute_grpo_outcome_advantage`:
 *   A_i = (r_i − mean(r)) / (std(r) + ε),  std unbiased (torch.std, divisor G − 1), ε = 1e-6.
 * With `normByStd: false`, A_i = r_i − mean(r): Dr.GRPO (Liu et al. 2025, arXiv:2503.20783).
 */
export function grpoGroupAdvantages(
  scores_G: readonly number[],
  options: GroupAdvantageOptions = {},
): number[] {
  const normByStd = options.normByStd ?? true;
  const epsilon = options.epsilon ?? 1e-6;
  const n = scores_G.length;
  if (n === 1) {
    if ((options.singletonGroup ?? 'zero') === 'zero') return [0];
    return normByStd ? [scores_G[0]! / (1 + epsilon)] : [scores_G[0]!];
  }
  const mu = mean(scores_G);
  if (!normByStd) return scores_G.map((r) => r - mu);
  const std = Math.sqrt(scores_G.reduce((s, r) => s + (r - mu) ** 2, 0) / (n - 1));
  return scores_G.map((r) => (r - mu) / (std + epsilon));
}

/**
 * RLOO (Ahmadian et al. 2024, arXiv:2402.14740), verl `compute_rloo_outcome_advantage`:
 *   A_i = r_i − (1/(G−1)) Σ_{j≠i} r_j = G/(G−1) · (r_i − mean(r)).
 */
export function rlooGroupAdvantages(
  scores_G: readonly number[],
  options: GroupAdvantageOptions = {},
): number[] {
  const n = scores_G.length;
  if (n === 1) return (options.singletonGroup ?? 'zero') === 'zero' ? [0] : [scores_G[0]!];
  const mu = mean(scores_G);
  return scores_G.map((r) => (r * n) / (n - 1) - (mu * n) / (n - 1));
}

/**
 * The group-mean baseline of REINFORCE++-baseline (Hu 2025, arXiv:2501.03262), verl
 * `compute_reinforce_plus_plus_baseline_outcome_advantage` before its batch whitening:
 *   A_i = r_i − mean(r).
 */
export function meanBaselineGroupAdvantages(
  scores_G: readonly number[],
  options: GroupAdvantageOptions = {},
): number[] {
  if (scores_G.length === 1) return (options.singletonGroup ?? 'zero') === 'zero' ? [0] : [scores_G[0]!];
  const mu = mean(scores_G);
  return scores_G.map((r) => r - mu);
}

/** Plain REINFORCE (Williams 1992), rLLM `reinforce`: A_i = r_i, no baseline. */
export function reinforceGroupAdvantages(scores_G: readonly number[]): number[] {
  return [...scores_G];
}
