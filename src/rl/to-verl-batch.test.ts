import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toVerlBatch } from './to-verl-batch.ts';

const PAD = 99;

test('toVerlBatch: left-padded prompts, right-padded responses, masks, positions and the reward', () => {
  const { tensors, promptTruncated_B, responseTruncated_B } = toVerlBatch(
    [
      {
        promptIds: [1, 2],
        responseIds: [10, 20, 11],
        responseMask: [1, 0, 1],
        responseLogprobs: [-0.5, 0, -0.25],
        reward: 1,
      },
      // prompt longer than P = 3 keeps its last 3 tokens; response longer than R = 4 keeps its first 4,
      // which end in an observation token, so the reward goes to the last model token (index 1)
      {
        promptIds: [3, 4, 5, 6],
        responseIds: [12, 13, 21, 22, 14],
        responseMask: [1, 1, 0, 0, 1],
        responseLogprobs: [-1, -2, 0, 0, -3],
        reward: 0.5,
      },
    ],
    { maxPromptLength: 3, maxResponseLength: 4, padTokenId: PAD },
  );
  assert.deepEqual(tensors.prompts, [
    [PAD, 1, 2],
    [4, 5, 6],
  ]);
  assert.deepEqual(tensors.responses, [
    [10, 20, 11, PAD],
    [12, 13, 21, 22],
  ]);
  assert.deepEqual(tensors.input_ids, [
    [PAD, 1, 2, 10, 20, 11, PAD],
    [4, 5, 6, 12, 13, 21, 22],
  ]);
  assert.deepEqual(tensors.attention_mask, [
    [0, 1, 1, 1, 1, 1, 0],
    [1, 1, 1, 1, 1, 1, 1],
  ]);
  // cumsum − 1, clipped at 0: [0 1 2 3 4 5 5] − 1 → −1→0, 0, 1, 2, 3, 4, 4
  assert.deepEqual(tensors.position_ids, [
    [0, 0, 1, 2, 3, 4, 4],
    [0, 1, 2, 3, 4, 5, 6],
  ]);
  assert.deepEqual(tensors.response_mask, [
    [1, 0, 1, 0],
    [1, 1, 0, 0],
  ]);
  assert.deepEqual(tensors.token_level_scores, [
    [0, 0, 1, 0],
    [0, 0.5, 0, 0],
  ]);
  assert.deepEqual(tensors.rollout_log_probs, [
    [-0.5, 0, -0.25, 0],
    [-1, -2, 0, 0],
  ]);
  assert.deepEqual(promptTruncated_B, [false, true]);
  assert.deepEqual(responseTruncated_B, [false, true]);
});

test('toVerlBatch omits rollout_log_probs unless every sample has them, and rejects bad samples', () => {
  const options = { maxPromptLength: 2, maxResponseLength: 2, padTokenId: 0 };
  const { tensors } = toVerlBatch(
    [
      { promptIds: [1], responseIds: [2], responseMask: [1], responseLogprobs: [-1], reward: 0 },
      { promptIds: [1], responseIds: [2], responseMask: [1], reward: 0 },
    ],
    options,
  );
  assert.equal(tensors.rollout_log_probs, undefined);
  assert.throws(
    () => toVerlBatch([{ promptIds: [1], responseIds: [], responseMask: [], reward: 0 }], options),
    /sample 0 has an empty/,
  );
  assert.throws(
    () => toVerlBatch([{ promptIds: [1], responseIds: [2, 3], responseMask: [1], reward: 0 }], options),
    /sample 0 has 2 response tokens but 1 and 2 mask\/logprob entries/,
  );
  assert.throws(
    () => toVerlBatch([{ promptIds: [1], responseIds: [2], responseMask: [1], reward: Number.NaN }], options),
    /reward NaN/,
  );
  assert.throws(
    () => toVerlBatch([], { ...options, maxResponseLength: 0 }),
    /maxResponseLength is 0; it must be a positive integer/,
  );
});
