import { lookupByName } from './registry.ts';
import { assertSameShape, type Ragged } from './shapes.ts';

/** One token's KL estimate and its derivative with respect to the current policy's logprob. */
export interface KlToken {
  value: number;
  /** ∂value/∂logp. */
  grad: number;
}

type KlEstimator = (logprob: number, refLogprob: number) => KlToken;

/** k1: log π(a) − log π_ref(a). Unbiased for KL(π‖π_ref), high variance, can be negative. */
const k1: KlEstimator = (logprob, refLogprob) => ({ value: logprob - refLogprob, grad: 1 });

/** |log π − log π_ref|; the derivative at 0 is 0, as torch's. */
const abs: KlEstimator = (logprob, refLogprob) => {
  const d = logprob - refLogprob;
  return { value: Math.abs(d), grad: Math.sign(d) };
};

/** k2: ½(log π − log π_ref)². Biased, but its gradient is the gradient of the true KL in expectation. */
const k2: KlEstimator = (logprob, refLogprob) => {
  const d = logprob - refLogprob;
  return { value: 0.5 * d * d, grad: d };
};

/**
 * k3 (low_var_kl): with x = clamp(log π_ref − log π, −20, 20), value = clamp(eˣ − x − 1, −10, 10).
 * Unbiased and non-negative, low variance; verl's clamps keep exp finite and the penalty bounded, and
 * a clamped side has zero derivative, as torch.clamp's.
 */
const k3: KlEstimator = (logprob, refLogprob) => {
  const raw = refLogprob - logprob;
  const x = Math.min(20, Math.max(-20, raw));
  const kl = Math.exp(x) - x - 1;
  const value = Math.min(10, Math.max(-10, kl));
  const passes = raw >= -20 && raw <= 20 && kl >= -10 && kl <= 10;
  return { value, grad: passes ? -(Math.exp(x) - 1) : 0 };
};

/** Straight-through: the forward value of `forward`, the gradient of k2 (verl's `+` suffix). */
function straightThrough(forward: KlEstimator): KlEstimator {
  return (logprob, refLogprob) => ({ value: forward(logprob, refLogprob).value, grad: logprob - refLogprob });
}

const estimators: Record<string, KlEstimator> = {
  k1,
  kl: k1,
  abs,
  k2,
  mse: k2,
  k3,
  low_var_kl: k3,
  'k1+': straightThrough(k1),
  'kl+': straightThrough(k1),
  'abs+': straightThrough(abs),
  'k3+': straightThrough(k3),
  'low_var_kl+': straightThrough(k3),
};

/** Valid values of `algorithm.kl_penalty` and `actor.kl_loss_type`. */
export const klEstimatorNames: readonly string[] = Object.keys(estimators);

/** The per-token estimator registered under `name`; an unknown name throws listing the valid ones. */
export function getKlEstimator(name: string): KlEstimator {
  return lookupByName('KL estimator', estimators, name);
}

export interface KlBatch {
  kl_B_T: number[][];
  dKlDLogprob_B_T: number[][];
}

/**
 * Per-token KL(π‖π_ref) estimates of a batch, J. Schulman, "Approximating KL divergence" (2020,
 * http://joschu.net/blog/kl-approx.html), as verl's `kl_penalty`: names `k1`|`kl`, `abs`, `k2`|`mse`,
 * `k3`|`low_var_kl`, and `k1+`, `kl+`, `abs+`, `k3+`, `low_var_kl+` (straight-through k2 gradient).
 * Shapes: `logprobs_B_T` (current policy), `refLogprobs_B_T` → `kl_B_T`, `dKlDLogprob_B_T`.
 */
export function estimateKl(name: string, logprobs_B_T: Ragged, refLogprobs_B_T: Ragged): KlBatch {
  const estimator = getKlEstimator(name);
  assertSameShape(`KL estimator "${name}"`, 'logprobs_B_T', logprobs_B_T, 'refLogprobs_B_T', refLogprobs_B_T);
  const tokens = logprobs_B_T.map((row, b) => row.map((lp, t) => estimator(lp, refLogprobs_B_T[b]![t]!)));
  return {
    kl_B_T: tokens.map((row) => row.map((k) => k.value)),
    dKlDLogprob_B_T: tokens.map((row) => row.map((k) => k.grad)),
  };
}
