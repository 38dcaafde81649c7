/** verl clamps log-ratios to ±20 before exponentiating so exp never overflows (e^20 ≈ 4.9e8). */
export const LOG_RATIO_BOUND = 20;

export interface ImportanceRatio {
  /** clamp(logp − logp_old, −20, 20). */
  logRatio: number;
  /** r = exp(logRatio). */
  ratio: number;
  /** ∂r/∂logp: r inside the clamp, 0 where it clamped (torch.clamp's derivative, bounds inclusive). */
  dRatio: number;
}

/** r_t(θ) = π_θ(a_t) / π_old(a_t) = exp(clamp(logp − logp_old, ±20)), with its derivative in logp. */
export function importanceRatio(logprob: number, oldLogprob: number): ImportanceRatio {
  const raw = logprob - oldLogprob;
  const logRatio = Math.min(LOG_RATIO_BOUND, Math.max(-LOG_RATIO_BOUND, raw));
  const ratio = Math.exp(logRatio);
  const inside = raw >= -LOG_RATIO_BOUND && raw <= LOG_RATIO_BOUND;
  return { logRatio, ratio, dRatio: inside ? ratio : 0 };
}
