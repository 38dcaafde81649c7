import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConfigError } from '../errors.ts';
import { advantageEstimatorNames, computeAdvantages } from './advantage-estimators.ts';
import { assertAllClose, assertClose, seededRandom } from './test-support.ts';

const ones = (n: number) => new Array<number>(n).fill(1);

test('grpo: unbiased std, eps 1e-6, singleton → 0, constant group → 0', () => {
  // group "a": scores 1, 0, 0, 1 → mean 0.5, unbiased var = 4·0.25/3 = 1/3, std = 0.577350269
  //   A = ±0.5 / (0.577350269 + 1e-6) = ±0.866023904
  // group "b": one sample → 0.   group "c": scores 3, 3 → (3 − 3)/(0 + 1e-6) = 0
  // the score is Σ_t r_t: seq 0 carries −0.25 + 1.25 = 1 (a KL penalty plus the outcome reward)
  const result = computeAdvantages('grpo', {
    tokenLevelRewards_B_T: [[-0.25, 1.25], [0], [0, 0, 0], [1], [2], [3], [3]],
    responseMask_B_T: [ones(2), ones(1), [1, 0, 1], ones(1), ones(1), ones(1), ones(1)],
    groupIds_B: ['a', 'a', 'a', 'a', 'b', 'c', 'c'],
  });
  const a = 0.866023904;
  assertAllClose(result.advantages_B_T, [[a, a], [-a], [-a, 0, -a], [a], [0], [0], [0]]);
  assert.deepEqual(result.returns_B_T, result.advantages_B_T);
});

test('grpo: singletonGroup "raw" reproduces verl (mean 0, std 1): 2/(1 + 1e-6) = 1.999998', () => {
  const input = { tokenLevelRewards_B_T: [[2]], responseMask_B_T: [[1]], groupIds_B: [0] };
  assertAllClose(computeAdvantages('grpo', input, { singletonGroup: 'raw' }).advantages_B_T, [[1.999998]]);
  assertAllClose(
    computeAdvantages('grpo', input, { singletonGroup: 'raw', normByStd: false }).advantages_B_T,
    [[2]],
  );
});

test('grpo with normByStd=false is Dr.GRPO: r − mean', () => {
  // scores 1, 0, 0, 1 → mean 0.5 → ±0.5
  const result = computeAdvantages(
    'grpo',
    {
      tokenLevelRewards_B_T: [[1], [0], [0], [1]],
      responseMask_B_T: [[1], [1], [1], [1]],
      groupIds_B: [7, 7, 7, 7],
    },
    { normByStd: false },
  );
  assertAllClose(result.advantages_B_T, [[0.5], [-0.5], [-0.5], [0.5]]);
});

test('rloo: r_i minus the mean of the others', () => {
  // scores 1, 0, 0 (n = 3, mean 1/3): 1·3/2 − (1/3)·3/2 = 1 = 1 − mean(0, 0); 0 − 0.5 = −0.5 = 0 − mean(1, 0)
  const result = computeAdvantages('rloo', {
    tokenLevelRewards_B_T: [[0, 1], [0], [0], [4]],
    responseMask_B_T: [ones(2), ones(1), ones(1), ones(1)],
    groupIds_B: ['x', 'x', 'x', 'solo'],
  });
  assertAllClose(result.advantages_B_T, [[1, 1], [-0.5], [-0.5], [0]]);
  const raw = computeAdvantages(
    'rloo',
    { tokenLevelRewards_B_T: [[4]], responseMask_B_T: [[1]], groupIds_B: [1] },
    {
      singletonGroup: 'raw',
    },
  );
  assertAllClose(raw.advantages_B_T, [[4]]);
});

test('reinforce: A = r, no baseline and no groups needed', () => {
  const result = computeAdvantages('reinforce', {
    tokenLevelRewards_B_T: [[0, 1], [0]],
    responseMask_B_T: [[1, 1], [1]],
  });
  assertAllClose(result.advantages_B_T, [[1, 1], [0]]);
});

test('reinforce_plus_plus_baseline: group-centred, then whitened over the batch tokens', () => {
  // group g: scores 1 (2 tokens), 0 (1 token) → ±0.5; group h: 0.5, 0.5 → 0, 0
  // tokens 0.5, 0.5, −0.5, 0, 0: mean 0.1, unbiased var (0.16+0.16+0.36+0.01+0.01)/4 = 0.175, std 0.41833
  //   → 0.4/0.41833 = 0.956183, −0.6/0.41833 = −1.434274, −0.1/0.41833 = −0.239046
  const result = computeAdvantages('reinforce_plus_plus_baseline', {
    tokenLevelRewards_B_T: [[0, 1], [0], [0.5], [0.5]],
    responseMask_B_T: [ones(2), ones(1), ones(1), ones(1)],
    groupIds_B: ['g', 'g', 'h', 'h'],
  });
  assertAllClose(result.advantages_B_T, [[0.956183, 0.956183], [-1.434274], [-0.239046], [-0.239046]]);
});

test('reinforce_plus_plus: discounted returns skipping observation tokens, whitened', () => {
  // γ = 0.5. seq 0: rewards 0, 0, 1 → G = 0.25, 0.5, 1.
  // seq 1: mask 1, 0, 1; the 7 on the observation token is ignored → G_2 = 2, G_0 = 0 + 0.5·2 = 1.
  // model-token returns 0.25, 0.5, 1, 1, 2: mean 0.95, unbiased var 0.45, std 0.670820
  //   → (0.25−0.95)/0.670820 = −1.043498, −0.670820, 0.074536, 0.074536, 1.565248
  const result = computeAdvantages(
    'reinforce_plus_plus',
    {
      tokenLevelRewards_B_T: [
        [0, 0, 1],
        [0, 7, 2],
      ],
      responseMask_B_T: [
        [1, 1, 1],
        [1, 0, 1],
      ],
    },
    { gamma: 0.5 },
  );
  assertAllClose(result.advantages_B_T, [
    [-1.043498, -0.67082, 0.074536],
    [0.074536, 0, 1.565248],
  ]);
  assertAllClose(result.returns_B_T, [
    [0.25, 0.5, 1],
    [1, 0, 2],
  ]);
});

test('gae: hand-computed, observation tokens skipped, whitened over model tokens', () => {
  // γ = 0.9, λ = 0.8; tokens model, model, observation, model; the 5 and the 9 on the observation are ignored
  // t=3: δ = 1 + 0 − 0.2 = 0.8;             Â = 0.8
  // t=1: δ = 0 + 0.9·0.2 − 0.4 = −0.22;     Â = −0.22 + 0.72·0.8 = 0.356
  // t=0: δ = 0 + 0.9·0.4 − 0.5 = −0.14;     Â = −0.14 + 0.72·0.356 = 0.11632
  // returns Â + V = 0.61632, 0.756, —, 1.0
  // whiten 0.11632, 0.356, 0.8: mean 0.424107, unbiased var 0.120333, std 0.346891
  //   → −0.887272, −0.196334, 1.083606
  const result = computeAdvantages(
    'gae',
    {
      tokenLevelRewards_B_T: [[0, 0, 5, 1]],
      values_B_T: [[0.5, 0.4, 9, 0.2]],
      responseMask_B_T: [[1, 1, 0, 1]],
    },
    { gamma: 0.9, lam: 0.8 },
  );
  assertAllClose(result.advantages_B_T, [[-0.887272, -0.196334, 0, 1.083606]]);
  assertAllClose(result.returns_B_T, [[0.61632, 0.756, 0, 1.0]]);
});

/** Plain GAE on the model tokens alone: what "skip observation tokens" must equal. */
function gaeOnModelTokens(rewards: number[], values: number[], gamma: number, lam: number): number[] {
  const out = new Array<number>(rewards.length).fill(0);
  for (let t = rewards.length - 1; t >= 0; t--) {
    const nextValue = t + 1 < rewards.length ? values[t + 1]! : 0;
    const nextAdv = t + 1 < rewards.length ? out[t + 1]! : 0;
    out[t] = rewards[t]! + gamma * nextValue - values[t]! + gamma * lam * nextAdv;
  }
  return out;
}

test('gae and grpo batched forms equal plain per-sample loops on random seeded batches', () => {
  const rand = seededRandom(42);
  for (let trial = 0; trial < 30; trial++) {
    const batch = 2 + Math.floor(rand() * 6);
    const mask = Array.from({ length: batch }, () =>
      Array.from({ length: 1 + Math.floor(rand() * 8) }, () => (rand() < 0.75 ? 1 : 0)),
    );
    mask.forEach((row) => {
      row[0] = 1;
    });
    const rewards = mask.map((row) => row.map(() => rand() * 2 - 1));
    const values = mask.map((row) => row.map(() => rand()));
    const gamma = 0.5 + rand() * 0.5;
    const lam = rand();
    const gae = computeAdvantages(
      'gae',
      { tokenLevelRewards_B_T: rewards, values_B_T: values, responseMask_B_T: mask },
      { gamma, lam },
    );
    mask.forEach((row, b) => {
      const picked = row.flatMap((m, t) => (m ? [t] : []));
      const expected = gaeOnModelTokens(
        picked.map((t) => rewards[b]![t]!),
        picked.map((t) => values[b]![t]!),
        gamma,
        lam,
      );
      picked.forEach((t, k) => {
        assertClose(gae.returns_B_T[b]![t]!, expected[k]! + values[b]![t]!, 1e-9);
      });
    });

    const groupIds = mask.map(() => Math.floor(rand() * 3));
    const grpo = computeAdvantages('grpo', {
      tokenLevelRewards_B_T: rewards,
      responseMask_B_T: mask,
      groupIds_B: groupIds,
    });
    const scores = rewards.map((row) => row.reduce((s, r) => s + r, 0));
    for (let i = 0; i < batch; i++) {
      const group: number[] = [];
      for (let j = 0; j < batch; j++) if (groupIds[j] === groupIds[i]) group.push(scores[j]!);
      let expected = 0;
      if (group.length > 1) {
        const mu = group.reduce((s, x) => s + x, 0) / group.length;
        const sd = Math.sqrt(group.reduce((s, x) => s + (x - mu) ** 2, 0) / (group.length - 1));
        expected = (scores[i]! - mu) / (sd + 1e-6);
      }
      mask[i]!.forEach((m, t) => {
        assertClose(grpo.advantages_B_T[i]![t]!, expected * m, 1e-9);
      });
    }
  }
});

test('bad inputs throw ConfigErrors that say what to fix', () => {
  const input = { tokenLevelRewards_B_T: [[1]], responseMask_B_T: [[1]] };
  assert.throws(
    () => computeAdvantages('ppo', input),
    (e: unknown) => {
      assert.ok(isConfigError(e));
      assert.match((e as Error).message, /unknown advantage estimator "ppo"; valid names are "gae", "grpo"/);
      return true;
    },
  );
  assert.throws(() => computeAdvantages('grpo', input), /groupIds_B is required/);
  assert.throws(() => computeAdvantages('gae', input), /values_B_T is required/);
  assert.throws(
    () => computeAdvantages('reinforce', { ...input, responseMask_B_T: [[1, 1]] }),
    /row 0 has 1 tokens/,
  );
  assert.throws(
    () => computeAdvantages('reinforce', { ...input, responseMask_B_T: [[0.5]] }),
    /only 0 and 1/,
  );
  assert.throws(
    () => computeAdvantages('reinforce_plus_plus', input, { gamma: 1.5 }),
    /gamma is 1.5; it must be in \[0, 1\]/,
  );
  assert.throws(
    () => computeAdvantages('grpo', { ...input, groupIds_B: [1, 2] }),
    /groupIds_B has 2 entries/,
  );
  assert.throws(
    () => computeAdvantages('grpo', { ...input, groupIds_B: [1] }, { singletonGroup: 'drop' as 'zero' }),
    /singletonGroup is "drop"/,
  );
  assert.deepEqual(advantageEstimatorNames, [
    'gae',
    'grpo',
    'rloo',
    'reinforce',
    'reinforce_plus_plus',
    'reinforce_plus_plus_baseline',
  ]);
});
