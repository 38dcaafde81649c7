import assert from 'node:assert/strict';
import { test } from 'node:test';
import { policyLossConfigFromTinker, policyLossConfigFromVerl } from './policy-loss-config.ts';
import type { PolicyLossConfig, PolicyLossInput } from './policy-loss-types.ts';
import { computePolicyLoss, policyLossNames } from './policy-losses.ts';
import { assertAllClose, assertClose, finiteDifference, seededRandom } from './test-support.ts';

const OLD = -2;
/** logp such that r = exp(logp − OLD) is exactly `ratio`. */
const at = (ratio: number) => OLD + Math.log(ratio);

// Five trained tokens and one masked one, ratios 1.5, 0.5, 0.5, 4, 1.1 with advantages 2, 2, −1, −1, −1.
const batch: PolicyLossInput = {
  logprobs_B_T: [
    [at(1.5), at(0.5), at(0.5)],
    [at(4), at(1.1), at(9)],
  ],
  oldLogprobs_B_T: [
    [OLD, OLD, OLD],
    [OLD, OLD, OLD],
  ],
  advantages_B_T: [
    [2, 2, -1],
    [-1, -1, 5],
  ],
  mask_B_T: [
    [1, 1, 1],
    [1, 1, 0],
  ],
};

test('ppo (verl: [0.8, 1.2], dual clip c = 3): hand-computed losses, gradients and metrics', () => {
  // r=1.5, A=2:  L1 = −3,  L2 = −2·1.2 = −2.4 → max −2.4 (clipped), ∂ 0
  // r=0.5, A=2:  L1 = −1,  L2 = −2·0.8 = −1.6 → max −1 (unclipped), ∂ = −A·r = −1
  // r=0.5, A=−1: L1 = 0.5, L2 = 0.8 → 0.8 (clipped), ∂ 0; under the dual cap −A·c = 3
  // r=4, A=−1:   L1 = 4,   L2 = 1.2 → 4, above the dual cap 3 → 3, ∂ 0 (clippedLower)
  // r=1.1, A=−1: L1 = L2 = 1.1 → 1.1, ∂ = −A·r = 1.1;  masked token → 0
  const result = computePolicyLoss('ppo', batch, policyLossConfigFromVerl());
  assertAllClose(result.loss_B_T, [
    [-2.4, -1, 0.8],
    [3, 1.1, 0],
  ]);
  assertAllClose(result.dLossDLogprob_B_T, [
    [0, -1, 0],
    [0, 1.1, 0],
  ]);
  // clipped 2 of 5, dual-clipped 1 of 5; ratios mean 7.6/5 = 1.52, min 0.5, max 4
  // ppo_kl = −mean(ln r) = −ln(1.5·0.5·0.5·4·1.1)/5 = −ln(1.65)/5 = −0.1001550
  const m = result.metrics;
  assertClose(m.clipFraction, 0.4);
  assertClose(m.clipFractionLower, 0.2);
  assertClose(m.ratioMean!, 1.52);
  assertClose(m.ratioMin!, 0.5);
  assertClose(m.ratioMax!, 4);
  assertClose(m.ppoKl!, -0.100155);
});

test('ppo with the Tinker/SkyRL parametrization: same thresholds, no dual clip', () => {
  // defaults 0.8/1.2; the r=4, A=−1 token keeps L = 4 and ∂ = −A·r = 4
  const config = policyLossConfigFromTinker();
  assert.deepEqual(config, { clip: { low: 0.8, high: 1.2 }, clipRatioC: null });
  const result = computePolicyLoss('ppo', batch, config);
  assertAllClose(result.loss_B_T, [
    [-2.4, -1, 0.8],
    [4, 1.1, 0],
  ]);
  assertAllClose(result.dLossDLogprob_B_T, [
    [0, -1, 0],
    [4, 1.1, 0],
  ]);
  assert.equal(result.metrics.clipFractionLower, 0);
  // the two parametrizations meet: verl ε 0.2 is Tinker 0.8/1.2
  assertAllClose(
    computePolicyLoss('ppo', batch, { ...policyLossConfigFromVerl(), clipRatioC: null }).loss_B_T,
    result.loss_B_T,
  );
});

test('ppo asymmetric clip (DAPO clip-higher 0.28) lets r = 1.25 through for A > 0', () => {
  // bounds [0.8, 1.28]: L1 = −1.25, L2 = −1.25 → −1.25, ∂ −1.25; symmetric 0.2 would give −1.2, ∂ 0
  const input = {
    logprobs_B_T: [[at(1.25)]],
    oldLogprobs_B_T: [[OLD]],
    advantages_B_T: [[1]],
    mask_B_T: [[1]],
  };
  const dapo = computePolicyLoss(
    'ppo',
    input,
    policyLossConfigFromVerl({ clip_ratio_low: 0.2, clip_ratio_high: 0.28 }),
  );
  assertAllClose(dapo.loss_B_T, [[-1.25]]);
  assertAllClose(dapo.dLossDLogprob_B_T, [[-1.25]]);
  const symmetric = computePolicyLoss('ppo', input, policyLossConfigFromVerl());
  assertAllClose(symmetric.loss_B_T, [[-1.2]]);
  assertAllClose(symmetric.dLossDLogprob_B_T, [[0]]);
});

test('importance_sampling, cispo and cross_entropy: hand-computed', () => {
  // IS, r = 1.5, A = 2: L = −3, ∂ = −A·r = −3
  const one = { logprobs_B_T: [[at(1.5)]], oldLogprobs_B_T: [[OLD]], advantages_B_T: [[2]], mask_B_T: [[1]] };
  const is = computePolicyLoss('importance_sampling', one);
  assertAllClose(is.loss_B_T, [[-3]]);
  assertAllClose(is.dLossDLogprob_B_T, [[-3]]);
  // CISPO [0.8, 1.2]: logp = −2 + ln 1.5 = −1.5945349; L = −1.2·2·(−1.5945349) = 3.8268837, ∂ = −1.2·2 = −2.4
  const cispo = computePolicyLoss('cispo', one);
  assertAllClose(cispo.loss_B_T, [[3.8268837]]);
  assertAllClose(cispo.dLossDLogprob_B_T, [[-2.4]]);
  assert.equal(cispo.metrics.clipFraction, 1);
  // CE, w = 0.5, logp = −2: L = 1, ∂ = −0.5; no ratio metrics
  const ce = computePolicyLoss('cross_entropy', {
    logprobs_B_T: [[-2, -3]],
    weights_B_T: [[0.5, 1]],
    mask_B_T: [[1, 0]],
  });
  assertAllClose(ce.loss_B_T, [[1, 0]]);
  assertAllClose(ce.dLossDLogprob_B_T, [[-0.5, 0]]);
  assert.deepEqual(ce.metrics, { clipFraction: 0, clipFractionLower: 0 });
});

test('rollout-correction weights multiply loss and gradient', () => {
  // ppo r = 0.5, A = 2 → L = −1, ∂ = −1; × 0.5
  const input = {
    logprobs_B_T: [[at(0.5)]],
    oldLogprobs_B_T: [[OLD]],
    advantages_B_T: [[2]],
    mask_B_T: [[1]],
    rolloutIsWeights_B_T: [[0.5]],
  };
  const result = computePolicyLoss('ppo', input);
  assertAllClose(result.loss_B_T, [[-0.5]]);
  assertAllClose(result.dLossDLogprob_B_T, [[-0.5]]);
});

/** verl's formula written out directly: where(A<0, min(max(L1, L2), L3), max(L1, L2)). */
function verlVanilla(logp: number, old: number, a: number, lo: number, hi: number, c: number): number {
  const r = Math.exp(Math.min(20, Math.max(-20, logp - old)));
  const clip1 = Math.max(-a * r, -a * Math.min(1 + hi, Math.max(1 - lo, r)));
  return a < 0 ? Math.min(clip1, -a * c) : clip1;
}

test('every loss gradient matches finite differences; ppo values match verl formula on random tokens', () => {
  const rand = seededRandom(11);
  const configs: Record<string, PolicyLossConfig> = {
    ppo: policyLossConfigFromVerl({ clip_ratio_low: 0.2, clip_ratio_high: 0.28 }),
    importance_sampling: {},
    cispo: policyLossConfigFromTinker({ clip_low_threshold: 0, clip_high_threshold: 4 }),
    cross_entropy: {},
  };
  const kinks = [0.8, 1.28, 3, 4];
  for (const name of policyLossNames) {
    for (let i = 0; i < 200; i++) {
      const old = -4 * rand();
      const logp = old + (rand() * 2 - 1) * 2.5;
      const advantage = rand() * 4 - 2;
      const weight = rand();
      const r = Math.exp(logp - old);
      if (kinks.some((k) => Math.abs(r - k) < 1e-3)) continue;
      // CISPO's ratio is under a stop-gradient: differentiate with the ratio held fixed, i.e. move the
      // old logprob along with logp.
      const frozen = name === 'cispo';
      const loss = (x: number) =>
        computePolicyLoss(
          name,
          {
            logprobs_B_T: [[x]],
            oldLogprobs_B_T: [[frozen ? old + x - logp : old]],
            advantages_B_T: [[advantage]],
            weights_B_T: [[weight]],
            mask_B_T: [[1]],
          },
          configs[name],
        );
      const analytic = loss(logp).dLossDLogprob_B_T[0]![0]!;
      const numeric = finiteDifference((x) => loss(x).loss_B_T[0]![0]!, logp);
      assertClose(analytic, numeric, 1e-5, `${name} logp=${logp} old=${old} A=${advantage}`);
      if (name === 'ppo')
        assertClose(loss(logp).loss_B_T[0]![0]!, verlVanilla(logp, old, advantage, 0.2, 0.28, 3), 1e-12);
    }
  }
});

test('ratios use exp(clamp(logp − old, ±20)): no overflow and zero gradient beyond the clamp', () => {
  const result = computePolicyLoss('importance_sampling', {
    logprobs_B_T: [[0]],
    oldLogprobs_B_T: [[-50]],
    advantages_B_T: [[1]],
    mask_B_T: [[1]],
  });
  assertClose(result.loss_B_T[0]![0]!, -Math.exp(20));
  assert.equal(result.dLossDLogprob_B_T[0]![0], -0);
});

test('bad policy-loss inputs and configs throw ConfigErrors naming the fix', () => {
  const input = { logprobs_B_T: [[-1]], mask_B_T: [[1]] };
  assert.throws(
    () => computePolicyLoss('grpo', input),
    /unknown policy loss "grpo"; valid names are "ppo", "importance_sampling", "cispo", "cross_entropy"/,
  );
  assert.throws(() => computePolicyLoss('ppo', input), /oldLogprobs_B_T is required/);
  assert.throws(() => computePolicyLoss('cross_entropy', input), /weights_B_T is required/);
  const ok = { ...input, oldLogprobs_B_T: [[-1]], advantages_B_T: [[1]] };
  assert.throws(() => computePolicyLoss('ppo', ok, { clipRatioC: 1 }), /clipRatioC is 1; it must be > 1/);
  assert.throws(
    () => computePolicyLoss('ppo', ok, { clip: { low: 0.2, high: 0.2 } }),
    /clip.high is 0.2; it must be ≥ 1/,
  );
  assert.throws(
    () => computePolicyLoss('ppo', { ...ok, advantages_B_T: [[Number.NaN]] }),
    /token \[0\]\[0\] has a non-finite input/,
  );
  assert.throws(() => computePolicyLoss('ppo', { ...ok, mask_B_T: [[1, 1]] }), /mask_B_T row 0 has 2 tokens/);
});
