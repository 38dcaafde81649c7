import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConfigError } from '../errors.ts';
import { assembleTrajectory } from './assemble-trajectory.ts';
import { placeOutcomeReward } from './place-outcome-reward.ts';

test('three turns: observations appended with mask 0, completions with mask 1 and their logprobs', () => {
  const result = assembleTrajectory([
    { promptIds: [1, 2], completionIds: [10, 11], completionLogprobs: [-0.1, -0.2] },
    // prompt = [1 2] + [10 11] + observation [20 21]
    { promptIds: [1, 2, 10, 11, 20, 21], completionIds: [12], completionLogprobs: [-0.3] },
    // prompt = previous + [12] + observation [22]
    { promptIds: [1, 2, 10, 11, 20, 21, 12, 22], completionIds: [13, 14], completionLogprobs: [-0.4, -0.5] },
  ]);
  assert.deepEqual(result, {
    promptIds: [1, 2],
    responseIds: [10, 11, 20, 21, 12, 22, 13, 14],
    responseMask: [1, 1, 0, 0, 1, 0, 1, 1],
    responseLogprobs: [-0.1, -0.2, 0, 0, -0.3, 0, -0.4, -0.5],
    valid: true,
  });
});

test('a turn with no new observation tokens and a single-turn episode', () => {
  const chained = assembleTrajectory([
    { promptIds: [1], completionIds: [5] },
    { promptIds: [1, 5], completionIds: [6] },
  ]);
  assert.deepEqual(chained.responseIds, [5, 6]);
  assert.deepEqual(chained.responseMask, [1, 1]);
  assert.equal(chained.responseLogprobs, undefined, 'no logprobs from the sampler → none invented');
  assert.deepEqual(assembleTrajectory([{ promptIds: [1], completionIds: [5, 6] }]).responseMask, [1, 1]);
});

test('re-tokenized history (rLLM PR #272: [53122, 316] vs [393, 30002]) invalidates and masks everything', () => {
  const result = assembleTrajectory([
    { promptIds: [1, 2], completionIds: [53122, 316], completionLogprobs: [-0.1, -0.2] },
    { promptIds: [1, 2, 20], completionIds: [7], completionLogprobs: [-0.3] },
    // the chat template re-encoded turn 0's completion as different ids for the same text
    { promptIds: [1, 2, 393, 30002, 20, 7, 21], completionIds: [8], completionLogprobs: [-0.4] },
  ]);
  // turn 1 already breaks: its prompt lacks the completion [53122, 316] at index 2
  assert.equal(result.valid, false);
  assert.equal(result.mismatchTurn, 1);
  assert.equal(result.mismatchPosition, 2);
  assert.deepEqual(result.responseIds, [53122, 316]);
  assert.deepEqual(result.responseMask, [0, 0]);
  assert.deepEqual(result.responseLogprobs, [0, 0]);
});

test('a later mismatch keeps the tokens before it, all masked; a prompt that stops short is a mismatch', () => {
  const later = assembleTrajectory([
    { promptIds: [1], completionIds: [5] },
    { promptIds: [1, 5, 9], completionIds: [6] },
    { promptIds: [1, 5, 9, 7], completionIds: [8] },
  ]);
  assert.equal(later.mismatchTurn, 2);
  assert.equal(later.mismatchPosition, 3);
  assert.deepEqual(later.responseIds, [5, 9, 6]);
  assert.deepEqual(later.responseMask, [0, 0, 0]);
  const short = assembleTrajectory([
    { promptIds: [1, 2], completionIds: [5] },
    { promptIds: [1, 2], completionIds: [6] },
  ]);
  assert.equal(short.valid, false);
  assert.equal(short.mismatchPosition, 2);
});

test('assembleTrajectory rejects empty episodes and logprob/token count mismatches', () => {
  assert.throws(() => assembleTrajectory([]), isConfigError);
  assert.throws(
    () => assembleTrajectory([{ promptIds: [1], completionIds: [5, 6], completionLogprobs: [-1] }]),
    /turn 0 has 2 completion tokens but 1 logprobs/,
  );
});

test('placeOutcomeReward: R on the last model token', () => {
  assert.deepEqual(placeOutcomeReward([1, 1, 0, 1], 1), [0, 0, 0, 1]);
  // truncated inside an observation: the last model token keeps it
  assert.deepEqual(placeOutcomeReward([1, 1, 0, 0], 1), [0, 1, 0, 0]);
  // invalid trajectory, every mask 0: the last token
  assert.deepEqual(placeOutcomeReward([0, 0], 0.5), [0, 0.5]);
  assert.throws(() => placeOutcomeReward([], 1), /response is empty/);
});
