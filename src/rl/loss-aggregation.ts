import { lookupByName } from './registry.ts';
import { assertBinaryMask, assertParam, assertSameShape, type Ragged } from './shapes.ts';

export interface LossAggregationOptions {
  /** token-mean: divide by this (global) token count instead of this batch's Σm (verl batch_num_tokens). */
  batchNumTokens?: number;
  /** seq-mean-*: divide by this (global) sequence count instead of this batch's non-empty ones. */
  globalBatchSize?: number;
  /**
   * seq-mean-token-sum-norm: the constant divisor. Default: the longest row, which is verl's padded
   * response length; pass `data.max_response_length` to keep it constant across steps (Dr.GRPO).
   */
  lossScaleFactor?: number;
}

export interface AggregatedLoss {
  loss: number;
  /** ∂loss/∂ℓ_t: chain with ∂ℓ_t/∂logp_t to get the gradient of the aggregate. */
  weight_B_T: number[][];
}

/** Per-token weights w_bt such that loss = Σ w_bt·ℓ_bt; every mode is linear in ℓ. */
type Weigher = (mask_B_T: Ragged, options: LossAggregationOptions) => number[][];

const count = (row: readonly number[]) => row.reduce((s, m) => s + m, 0);
const nonEmpty = (mask_B_T: Ragged) => mask_B_T.filter((row) => count(row) > 0).length;
const uniform = (mask_B_T: Ragged, divisor: number) =>
  mask_B_T.map((row) => row.map((m) => (divisor > 0 ? m / divisor : 0)));

const weighers: Record<string, Weigher> = {
  /** Σ ℓ·m / Σ m: every token counts the same (verl's default). */
  'token-mean': (mask_B_T, o) =>
    uniform(mask_B_T, o.batchNumTokens ?? mask_B_T.reduce((s, row) => s + count(row), 0)),
  /** mean over non-empty sequences of Σ_t ℓ·m (DeepSWE's mode). */
  'seq-mean-token-sum': (mask_B_T, o) => uniform(mask_B_T, o.globalBatchSize ?? nonEmpty(mask_B_T)),
  /** mean over non-empty sequences of Σ_t ℓ·m / (Σ_t m + 1e-8). */
  'seq-mean-token-mean': (mask_B_T, o) => {
    const sequences = o.globalBatchSize ?? nonEmpty(mask_B_T);
    return mask_B_T.map((row) => {
      const divisor = (count(row) + 1e-8) * sequences;
      return row.map((m) => (sequences > 0 ? m / divisor : 0));
    });
  },
  /** Σ ℓ·m / F with a constant F (Dr.GRPO, Liu et al. 2025); note: not divided by the batch size. */
  'seq-mean-token-sum-norm': (mask_B_T, o) =>
    uniform(mask_B_T, o.lossScaleFactor ?? Math.max(0, ...mask_B_T.map((row) => row.length))),
};

/** Valid values of `loss_agg_mode`. */
export const lossAggregationModes: readonly string[] = Object.keys(weighers);

/**
 * Reduce per-token losses to one scalar as verl's `agg_loss` (core_algos.py), returning also each
 * token's weight ∂loss/∂ℓ_t so an engine can chain gradients: ∂loss/∂logp_t = w_t · ∂ℓ_t/∂logp_t.
 * A batch with nothing to train on (no selected token) aggregates to 0 with zero weights, where verl
 * would divide by zero. Shapes: `loss_B_T`, `mask_B_T` (0/1) → scalar, `weight_B_T`.
 */
export function aggregateLoss(
  mode: string,
  loss_B_T: Ragged,
  mask_B_T: Ragged,
  options: LossAggregationOptions = {},
): AggregatedLoss {
  const weigher = lookupByName('loss_agg_mode', weighers, mode);
  const what = `loss aggregation "${mode}"`;
  assertSameShape(what, 'loss_B_T', loss_B_T, 'mask_B_T', mask_B_T);
  assertBinaryMask(what, 'mask_B_T', mask_B_T);
  for (const key of ['batchNumTokens', 'globalBatchSize', 'lossScaleFactor'] as const) {
    const value = options[key];
    if (value !== undefined) assertParam(what, key, value, value > 0, '> 0');
  }
  const weight_B_T = weigher(mask_B_T, options);
  let loss = 0;
  weight_B_T.forEach((row, b) => {
    row.forEach((w, t) => {
      // masked tokens are skipped, not multiplied: a NaN there must not leak into the sum (verl masked_sum)
      if (w !== 0) loss += w * loss_B_T[b]![t]!;
    });
  });
  return { loss, weight_B_T };
}
