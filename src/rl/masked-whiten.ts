import type { Ragged } from './shapes.ts';

/**
 * Masked whitening over a whole ragged batch, as verl's `masked_whiten` (verl/utils/torch_functional.py):
 *
 *   μ   = Σ x·m / (Σ m + 1e-8)
 *   σ²  = Σ (x − μ)²·m / (Σ m + 1e-8) · N/(N − 1)        (unbiased, N = Σ m)
 *   x̂   = (x − μ) / √(σ² + 1e-8)
 *
 * Shapes: `values_B_T`, `mask_B_T` (0/1) → `whitened_B_T`, every position whitened (callers multiply by
 * the mask). verl raises when N < 2; here a batch with fewer than two selected tokens whitens to all
 * zeros, the limit of x − μ at N = 1, so one fully masked batch (every trajectory filtered) does not
 * stop a training run.
 */
export function maskedWhiten(values_B_T: Ragged, mask_B_T: Ragged): number[][] {
  let count = 0;
  let sum = 0;
  for (let b = 0; b < values_B_T.length; b++) {
    const v = values_B_T[b]!;
    const m = mask_B_T[b]!;
    for (let t = 0; t < v.length; t++) {
      if (m[t] !== 0) {
        count += 1;
        sum += v[t]!;
      }
    }
  }
  if (count < 2) return values_B_T.map((row) => row.map(() => 0));
  const mean = sum / (count + 1e-8);
  let squares = 0;
  for (let b = 0; b < values_B_T.length; b++) {
    const v = values_B_T[b]!;
    const m = mask_B_T[b]!;
    for (let t = 0; t < v.length; t++) if (m[t] !== 0) squares += (v[t]! - mean) ** 2;
  }
  const variance = (squares / (count + 1e-8)) * (count / (count - 1));
  const invStd = 1 / Math.sqrt(variance + 1e-8);
  return values_B_T.map((row) => row.map((x) => (x - mean) * invStd));
}
