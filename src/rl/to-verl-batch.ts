import { ConfigError } from '../errors.ts';
import { placeOutcomeReward } from './place-outcome-reward.ts';
import { assertParam } from './shapes.ts';

/** One assembled trajectory and its outcome reward. */
export interface VerlSample {
  promptIds: readonly number[];
  responseIds: readonly number[];
  responseMask: readonly number[];
  responseLogprobs?: readonly number[];
  reward: number;
}

export interface VerlBatchOptions {
  /** `data.max_prompt_length`: prompts are left-padded (or left-truncated) to it. */
  maxPromptLength: number;
  /** `data.max_response_length`: responses are right-padded (or right-truncated) to it. */
  maxResponseLength: number;
  /** The tokenizer's pad token id. */
  padTokenId: number;
}

/** verl DataProto tensor keys; each row is P = maxPromptLength and/or R = maxResponseLength wide. */
export interface VerlTensors {
  prompts: number[][];
  responses: number[][];
  /** [prompt | response], P + R. */
  input_ids: number[][];
  attention_mask: number[][];
  /** max(cumsum(attention_mask) − 1, 0), verl's `compute_position_id_with_mask`. */
  position_ids: number[][];
  response_mask: number[][];
  token_level_scores: number[][];
  /** Sampler logprobs, 0 on padding and observations; present when every sample has them. */
  rollout_log_probs?: number[][];
}

export interface VerlBatch {
  tensors: VerlTensors;
  /** Prompts longer than P keep their last P tokens, as rLLM; these samples lost their beginning. */
  promptTruncated_B: boolean[];
  /** Responses longer than R keep their first R tokens. */
  responseTruncated_B: boolean[];
}

const rightPad = (row: readonly number[], width: number, pad: number) => [
  ...row.slice(0, width),
  ...new Array<number>(Math.max(0, width - row.length)).fill(pad),
];

/**
 * Lay a batch out as verl's trainer reads it (rLLM `_transform_agent_trajectories`): prompts left-padded
 * to P, responses right-padded to R, masks, positions, and the reward placed after truncation so it
 * always survives (`placeOutcomeReward`).
 */
export function toVerlBatch(samples: readonly VerlSample[], options: VerlBatchOptions): VerlBatch {
  const { maxPromptLength: P, maxResponseLength: R, padTokenId } = options;
  assertParam('toVerlBatch', 'maxPromptLength', P, Number.isInteger(P) && P > 0, 'a positive integer');
  assertParam('toVerlBatch', 'maxResponseLength', R, Number.isInteger(R) && R > 0, 'a positive integer');
  assertParam(
    'toVerlBatch',
    'padTokenId',
    padTokenId,
    Number.isInteger(padTokenId) && padTokenId >= 0,
    'a token id',
  );
  samples.forEach((s, b) => {
    if (s.promptIds.length === 0 || s.responseIds.length === 0) {
      throw new ConfigError(
        `toVerlBatch: sample ${b} has an empty prompt or response; verl cannot train on it`,
      );
    }
    if (!Number.isFinite(s.reward)) {
      throw new ConfigError(`toVerlBatch: sample ${b} has reward ${s.reward}; mask failed episodes instead`);
    }
    const lengths = [s.responseMask.length, s.responseLogprobs?.length ?? s.responseIds.length];
    if (lengths.some((n) => n !== s.responseIds.length)) {
      throw new ConfigError(
        `toVerlBatch: sample ${b} has ${s.responseIds.length} response tokens but ${lengths.join(' and ')} ` +
          'mask/logprob entries; assemble them together',
      );
    }
  });
  const prompts = samples.map((s) => {
    const kept = s.promptIds.slice(-P);
    return [...new Array<number>(P - kept.length).fill(padTokenId), ...kept];
  });
  const promptAttention = samples.map((s) => {
    const n = Math.min(P, s.promptIds.length);
    return Array.from({ length: P }, (_, i) => (i >= P - n ? 1 : 0));
  });
  const responseAttention = samples.map((s) =>
    rightPad(new Array<number>(s.responseIds.length).fill(1), R, 0),
  );
  const attention_mask = samples.map((_, b) => [...promptAttention[b]!, ...responseAttention[b]!]);
  const responses = samples.map((s) => rightPad(s.responseIds, R, padTokenId));
  const response_mask = samples.map((s) => rightPad(s.responseMask, R, 0));
  const tensors: VerlTensors = {
    prompts,
    responses,
    input_ids: samples.map((_, b) => [...prompts[b]!, ...responses[b]!]),
    attention_mask,
    position_ids: attention_mask.map((row) => {
      let seen = 0;
      return row.map((m) => {
        seen += m;
        return Math.max(seen - 1, 0);
      });
    }),
    response_mask,
    token_level_scores: samples.map((s) =>
      rightPad(placeOutcomeReward(s.responseMask.slice(0, R), s.reward), R, 0),
    ),
  };
  if (samples.length > 0 && samples.every((s) => s.responseLogprobs)) {
    tensors.rollout_log_probs = samples.map((s) => rightPad(s.responseLogprobs!, R, 0));
  }
  return {
    tensors,
    promptTruncated_B: samples.map((s) => s.promptIds.length > P),
    responseTruncated_B: samples.map((s) => s.responseIds.length > R),
  };
}
