import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rolloutCorrectionWeights } from './rollout-correction.ts';
import { assertAllClose, assertClose } from './test-support.ts';

// log π_train − log π_rollout per token: seq 0 → ln 3, ln 0.25, 0 (masked); seq 1 → ln 1.5
const input = {
  trainerLogprobs_B_T: [[Math.log(3) - 1, Math.log(0.25) - 1, 5], [Math.log(1.5) - 2]],
  samplerLogprobs_B_T: [[-1, -1, 0], [-2]],
  mask_B_T: [[1, 1, 0], [1]],
};

test('token level: w = min(π_train/π_rollout, cap), metrics before truncation', () => {
  // ratios 3, 0.25, 1.5 → truncated at 2: 2, 0.25, 1.5; the masked token → 0
  // mean (3 + 0.25 + 1.5)/3 = 1.583333; max 3, min 0.25; above 2: 1/3; below 1/2: 1/3
  const r = rolloutCorrectionWeights(input, { level: 'token' });
  assertAllClose(r.weights_B_T, [[2, 0.25, 0], [1.5]]);
  assertClose(r.metrics.mean, 1.583333);
  assertClose(r.metrics.max, 3);
  assertClose(r.metrics.min, 0.25);
  assertClose(r.metrics.fractionHigh, 1 / 3);
  assertClose(r.metrics.fractionLow, 1 / 3);
});

test('sequence level: one weight per sequence from the product of its token ratios', () => {
  // seq 0: 3 · 0.25 = 0.75 (the masked token is left out); seq 1: 1.5 → both under the cap 2
  // mean over tokens (0.75 + 0.75 + 1.5)/3 = 1; max 1.5, min 0.75; none above 2 or below 0.5
  const r = rolloutCorrectionWeights(input, { level: 'sequence' });
  assertAllClose(r.weights_B_T, [[0.75, 0.75, 0], [1.5]]);
  assertClose(r.metrics.mean, 1);
  assertClose(r.metrics.max, 1.5);
  assertClose(r.metrics.min, 0.75);
  assert.equal(r.metrics.fractionHigh, 0);
  // cap 1.2 truncates seq 1 to 1.2; 1.5 > 1.2 is high, 0.75 < 1/1.2 = 0.833 is low
  const capped = rolloutCorrectionWeights(input, { level: 'sequence', cap: 1.2 });
  assertAllClose(capped.weights_B_T, [[0.75, 0.75, 0], [1.2]]);
  assertClose(capped.metrics.fractionHigh, 0.5);
  assertClose(capped.metrics.fractionLow, 0.5);
});

test('log ratios are clamped to ±20 before exp', () => {
  const r = rolloutCorrectionWeights(
    { trainerLogprobs_B_T: [[0, -60]], samplerLogprobs_B_T: [[-60, 0]], mask_B_T: [[1, 1]] },
    { level: 'token', cap: 1e12 },
  );
  assertAllClose(r.weights_B_T, [[Math.exp(20), Math.exp(-20)]]);
});

test('bad levels, caps and shapes throw', () => {
  assert.throws(
    () => rolloutCorrectionWeights(input, { level: 'geometric' }),
    /valid names are "token", "sequence"/,
  );
  assert.throws(
    () => rolloutCorrectionWeights(input, { level: 'token', cap: 0 }),
    /cap is 0; it must be > 0/,
  );
  assert.throws(
    () => rolloutCorrectionWeights({ ...input, samplerLogprobs_B_T: [[-1], [-2]] }, { level: 'token' }),
    /samplerLogprobs_B_T row 0 has 1 tokens/,
  );
  const empty = rolloutCorrectionWeights({ ...input, mask_B_T: [[0, 0, 0], [0]] }, { level: 'token' });
  assert.deepEqual(empty.weights_B_T, [[0, 0, 0], [0]]);
});
