import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aggregateLoss, lossAggregationModes } from './loss-aggregation.ts';
import { assertAllClose, assertClose, finiteDifference, seededRandom } from './test-support.ts';

// ℓ = [1 2 3] [4 NaN] [6]; mask [1 1 1] [1 0] [0]: the third sequence is empty, the NaN is masked
const loss = [[1, 2, 3], [4, Number.NaN], [6]];
const mask = [[1, 1, 1], [1, 0], [0]];

test('token-mean: (1+2+3+4)/4 = 2.5, weights 1/4', () => {
  const r = aggregateLoss('token-mean', loss, mask);
  assertClose(r.loss, 2.5);
  assertAllClose(r.weight_B_T, [[0.25, 0.25, 0.25], [0.25, 0], [0]]);
  // a global token count (micro-batching) replaces Σm: 10/8 = 1.25
  assertClose(aggregateLoss('token-mean', loss, mask, { batchNumTokens: 8 }).loss, 1.25);
});

test('seq-mean-token-sum: (6 + 4)/2 non-empty sequences = 5, weights 1/2', () => {
  const r = aggregateLoss('seq-mean-token-sum', loss, mask);
  assertClose(r.loss, 5);
  assertAllClose(r.weight_B_T, [[0.5, 0.5, 0.5], [0.5, 0], [0]]);
  assertClose(aggregateLoss('seq-mean-token-sum', loss, mask, { globalBatchSize: 4 }).loss, 2.5);
});

test('seq-mean-token-mean: (6/3 + 4/1)/2 = 3, weights 1/6 and 1/2', () => {
  const r = aggregateLoss('seq-mean-token-mean', loss, mask);
  assertClose(r.loss, 3);
  assertAllClose(r.weight_B_T, [[1 / 6, 1 / 6, 1 / 6], [0.5, 0], [0]]);
});

test('seq-mean-token-sum-norm: (6 + 4)/F, F = longest row 3 by default or the given constant', () => {
  const r = aggregateLoss('seq-mean-token-sum-norm', loss, mask);
  assertClose(r.loss, 10 / 3);
  assertAllClose(r.weight_B_T, [[1 / 3, 1 / 3, 1 / 3], [1 / 3, 0], [0]]);
  assertClose(aggregateLoss('seq-mean-token-sum-norm', loss, mask, { lossScaleFactor: 8 }).loss, 1.25);
});

/** verl's agg_loss written out per mode, as a plain loop. */
function verlAggLoss(mode: string, l: number[][], m: number[][]): number {
  const sums = l.map((row, b) => row.reduce((s, x, t) => s + (m[b]![t] ? x : 0), 0));
  const counts = m.map((row) => row.reduce((s, x) => s + x, 0));
  const seqs = counts.filter((c) => c > 0).length;
  switch (mode) {
    case 'token-mean':
      return sums.reduce((s, x) => s + x, 0) / counts.reduce((s, x) => s + x, 0);
    case 'seq-mean-token-sum':
      return sums.reduce((s, x, b) => s + (counts[b]! > 0 ? x : 0), 0) / seqs;
    case 'seq-mean-token-mean':
      return sums.reduce((s, x, b) => s + (counts[b]! > 0 ? x / (counts[b]! + 1e-8) : 0), 0) / seqs;
    default:
      return sums.reduce((s, x) => s + x, 0) / Math.max(...l.map((row) => row.length));
  }
}

test('every mode equals verl agg_loss on random batches, and its weights are the finite-difference slopes', () => {
  const rand = seededRandom(5);
  for (const mode of lossAggregationModes) {
    for (let trial = 0; trial < 20; trial++) {
      const l = Array.from({ length: 1 + Math.floor(rand() * 5) }, () =>
        Array.from({ length: 1 + Math.floor(rand() * 6) }, () => rand() * 4 - 2),
      );
      const m = l.map((row) => row.map(() => (rand() < 0.7 ? 1 : 0)));
      m[0]![0] = 1;
      const r = aggregateLoss(mode, l, m);
      assertClose(r.loss, verlAggLoss(mode, l, m), 1e-12, mode);
      const b = Math.floor(rand() * l.length);
      const t = Math.floor(rand() * l[b]!.length);
      const slope = finiteDifference((x) => {
        const copy = l.map((row) => [...row]);
        copy[b]![t] = x;
        return aggregateLoss(mode, copy, m).loss;
      }, l[b]![t]!);
      assertClose(r.weight_B_T[b]![t]!, slope, 1e-6, `${mode} weight [${b}][${t}]`);
    }
  }
});

test('a batch with no trained token aggregates to 0; bad modes and options throw', () => {
  for (const mode of lossAggregationModes) {
    assert.equal(aggregateLoss(mode, [[1, 2]], [[0, 0]]).loss, 0);
  }
  assert.throws(
    () => aggregateLoss('mean', loss, mask),
    /unknown loss_agg_mode "mean"; valid names are "token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm"/,
  );
  assert.throws(
    () => aggregateLoss('token-mean', loss, mask, { batchNumTokens: 0 }),
    /batchNumTokens is 0; it must be > 0/,
  );
  assert.throws(
    () => aggregateLoss('token-mean', [[1]], mask),
    /mask_B_T has 3 sequences but loss_B_T has 1/,
  );
});
