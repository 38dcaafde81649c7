import { test } from 'node:test';
import {
  aggregateLoss,
  assembleTrajectory,
  computeAdvantages,
  computePolicyLoss,
  placeOutcomeReward,
  policyLossConfigFromVerl,
} from './index.ts';
import { assertAllClose, assertClose, finiteDifference } from './test-support.ts';

test('the public pipeline composes: episodes → advantages → loss → chained gradient', () => {
  // two samples of one task; sample 0 solved it in two turns (reward 1), sample 1 failed in one (reward 0)
  const solved = assembleTrajectory([
    { promptIds: [1, 2], completionIds: [10], completionLogprobs: [-0.5] },
    { promptIds: [1, 2, 10, 30], completionIds: [11], completionLogprobs: [-1] },
  ]);
  const failed = assembleTrajectory([
    { promptIds: [1, 2], completionIds: [12, 13], completionLogprobs: [-2, -0.1] },
  ]);
  const mask_B_T = [solved.responseMask, failed.responseMask]; // [1 0 1], [1 1]
  // GRPO: scores 1, 0 → mean 0.5, unbiased std √0.5 = 0.70710678 → A = ±0.5/0.70710778 = ±0.70710578
  const { advantages_B_T } = computeAdvantages('grpo', {
    tokenLevelRewards_B_T: [
      placeOutcomeReward(solved.responseMask, 1),
      placeOutcomeReward(failed.responseMask, 0),
    ],
    responseMask_B_T: mask_B_T,
    groupIds_B: ['task', 'task'],
  });
  const a = 0.70710578;
  assertAllClose(advantages_B_T, [
    [a, 0, a],
    [-a, -a],
  ]);
  // on-policy first step: logp = sampler logprobs, every ratio 1 → ℓ = −A, ∂ℓ/∂logp = −A
  const oldLogprobs_B_T = [solved.responseLogprobs!, failed.responseLogprobs!];
  const lossAt = (logprobs_B_T: number[][]) =>
    computePolicyLoss(
      'ppo',
      { logprobs_B_T, oldLogprobs_B_T, advantages_B_T, mask_B_T },
      policyLossConfigFromVerl(),
    );
  const perToken = lossAt(oldLogprobs_B_T);
  assertAllClose(perToken.dLossDLogprob_B_T, [
    [-a, 0, -a],
    [a, a],
  ]);
  // token-mean over 4 tokens: (−a − a + a + a)/4 = 0; the gradient is w·∂ℓ = ∓a/4
  const aggregate = aggregateLoss('token-mean', perToken.loss_B_T, mask_B_T);
  assertClose(aggregate.loss, 0);
  const grad = (b: number, t: number) => aggregate.weight_B_T[b]![t]! * perToken.dLossDLogprob_B_T[b]![t]!;
  assertClose(grad(0, 0), -a / 4);
  assertClose(grad(1, 1), a / 4);
  // and it is the slope of the whole pipeline's scalar
  const slope = finiteDifference((x) => {
    const logprobs = oldLogprobs_B_T.map((row) => [...row]);
    logprobs[1]![1] = x;
    return aggregateLoss('token-mean', lossAt(logprobs).loss_B_T, mask_B_T).loss;
  }, oldLogprobs_B_T[1]![1]!);
  assertClose(grad(1, 1), slope, 1e-6);
});
