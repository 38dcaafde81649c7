import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKlController, updateKlController } from './kl-controller.ts';
import { estimateKl, getKlEstimator, klEstimatorNames } from './kl-estimators.ts';
import { applyKlPenalty, klLoss } from './kl-penalty.ts';
import { assertAllClose, assertClose, finiteDifference, seededRandom } from './test-support.ts';

test('KL estimators at logp = −1, ref = −1.5 (d = logp − ref = 0.5)', () => {
  // k1 = 0.5, ∂ = 1;  abs = 0.5, ∂ = 1;  k2 = ½·0.25 = 0.125, ∂ = d = 0.5
  // k3: x = ref − logp = −0.5, eˣ = 0.60653066 → eˣ − x − 1 = 0.10653066, ∂ = −(eˣ − 1) = 0.39346934
  // k3+: value 0.10653066, ∂ = 0.5 (k2's)
  const expected: Record<string, [number, number]> = {
    k1: [0.5, 1],
    kl: [0.5, 1],
    abs: [0.5, 1],
    k2: [0.125, 0.5],
    mse: [0.125, 0.5],
    k3: [0.10653066, 0.39346934],
    low_var_kl: [0.10653066, 0.39346934],
    'k1+': [0.5, 0.5],
    'kl+': [0.5, 0.5],
    'abs+': [0.5, 0.5],
    'k3+': [0.10653066, 0.5],
    'low_var_kl+': [0.10653066, 0.5],
  };
  assert.deepEqual([...klEstimatorNames].sort(), Object.keys(expected).sort());
  for (const [name, [value, grad]] of Object.entries(expected)) {
    const { kl_B_T, dKlDLogprob_B_T } = estimateKl(name, [[-1]], [[-1.5]]);
    assertClose(kl_B_T[0]![0]!, value, 1e-6, `${name} value`);
    assertClose(dKlDLogprob_B_T[0]![0]!, grad, 1e-6, `${name} grad`);
  }
});

test('k3 follows verl clamps: log-ratio to ±20, value to [−10, 10], zero gradient when clamped', () => {
  const k3 = getKlEstimator('k3');
  // x = 2: e² − 2 − 1 = 4.38905610, ∂ = −(e² − 1) = −6.38905610
  assertClose(k3(-1, 1).value, 4.3890561);
  assertClose(k3(-1, 1).grad, -6.3890561);
  // x = −30 → −20: e^−20 + 20 − 1 ≈ 19 → 10, ∂ 0;  x = 13: e^13 − 14 ≈ 442399 → 10, ∂ 0
  assert.deepEqual(k3(0, -30), { value: 10, grad: 0 });
  assert.deepEqual(k3(-13, 0), { value: 10, grad: 0 });
  assert.equal(getKlEstimator('abs')(-2, -2).grad, 0);
});

test('every KL gradient matches finite differences (straight-through ones match k2)', () => {
  const rand = seededRandom(3);
  for (const name of klEstimatorNames) {
    const estimator = getKlEstimator(name);
    const slope = name.endsWith('+') ? getKlEstimator('k2') : estimator;
    for (let i = 0; i < 50; i++) {
      const logprob = -3 * rand();
      const ref = logprob + (rand() < 0.5 ? -1 : 1) * (0.05 + 1.5 * rand());
      const numeric = finiteDifference((x) => slope(x, ref).value, logprob);
      assertClose(estimator(logprob, ref).grad, numeric, 1e-5, `${name} at ${logprob}, ${ref}`);
    }
  }
});

test('unknown KL estimator names list the valid ones ("k2+" does not exist in verl either)', () => {
  assert.throws(
    () => getKlEstimator('k2+'),
    /unknown KL estimator "k2\+"; valid names are "k1", "kl", "abs"/,
  );
  assert.throws(() => estimateKl('k1', [[1, 2]], [[1]]), /refLogprobs_B_T row 0 has 1 tokens/);
});

test('applyKlPenalty: r = s − β·KL·m and the observed KL verl feeds the controller', () => {
  // β = 0.5: seq 0 → 0 − 0.05, 0 − 0.1, 1 − 0.15 = 0.85; seq 1 → 0 − 0.2, 2 (masked KL 0.5 not applied)
  // observed = mean(0.6/3, 0.4/1) = mean(0.2, 0.4) = 0.3
  const result = applyKlPenalty(
    [
      [0, 0, 1],
      [0, 2],
    ],
    [
      [0.1, 0.2, 0.3],
      [0.4, 0.5],
    ],
    0.5,
    [
      [1, 1, 1],
      [1, 0],
    ],
  );
  assertAllClose(result.tokenLevelRewards_B_T, [
    [-0.05, -0.1, 0.85],
    [-0.2, 2],
  ]);
  assertClose(result.observedKl, 0.3);
});

test('klLoss scales value and gradient by coef on trained tokens only', () => {
  // low_var_kl at d = 0.5: 0.10653066 · 0.001, ∂ 0.39346934 · 0.001; the masked token is 0
  const result = klLoss('low_var_kl', [[-1, -1]], [[-1.5, -1.5]], [[1, 0]], 0.001);
  assertAllClose(result.loss_B_T, [[0.00010653066, 0]], 1e-9);
  assertAllClose(result.dLossDLogprob_B_T, [[0.00039346934, 0]], 1e-9);
});

test('KL controllers: fixed never moves; adaptive follows verl (clip ±0.2, × n/horizon)', () => {
  const fixed = createKlController({ type: 'fixed', klCoef: 0.01 });
  assert.deepEqual(updateKlController(fixed, 5, 256), { type: 'fixed', coef: 0.01 });
  const adaptive = createKlController({ type: 'adaptive' });
  assert.deepEqual(adaptive, { type: 'adaptive', coef: 0.001, targetKl: 0.1, horizon: 10000 });
  // observed 0.15: e = clip(0.5) = 0.2 → β = 0.001 · (1 + 0.2·256/10000) = 0.00100512
  assertClose(updateKlController(adaptive, 0.15, 256).coef, 0.00100512, 1e-9);
  // observed 0.09: e = −0.1 → β = 0.001 · (1 − 0.1·256/10000) = 0.00099744
  assertClose(updateKlController(adaptive, 0.09, 256).coef, 0.00099744, 1e-9);
  assert.throws(
    () => createKlController({ type: 'pid' }),
    /unknown KL controller type "pid"; valid names are "fixed", "adaptive"/,
  );
  assert.throws(() => createKlController({ type: 'adaptive', horizon: 0 }), /horizon is 0; it must be > 0/);
  assert.throws(() => updateKlController(adaptive, Number.NaN, 1), /observedKl NaN/);
});
