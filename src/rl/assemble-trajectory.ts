import { ConfigError } from '../errors.ts';

/** One LLM call of an episode, exactly as the sampler saw and produced it. */
export interface SampledTurn {
  /** The full prompt sent for this turn: the history so far plus the new observation. */
  promptIds: readonly number[];
  /** The tokens the model generated. */
  completionIds: readonly number[];
  /** Sampler logprobs of `completionIds`, one each, when the sampler returned them. */
  completionLogprobs?: readonly number[];
}

/** One episode as one training sequence: prompt, then response = completions interleaved with observations. */
export interface AssembledTrajectory {
  /** Turn 0's prompt. */
  promptIds: number[];
  responseIds: number[];
  /** 1 = model token (trained on), 0 = tool/observation token; all 0 when invalid. */
  responseMask: number[];
  /** Sampler logprobs where mask is 1, 0 elsewhere; undefined unless every turn carried logprobs. */
  responseLogprobs: number[] | undefined;
  /** false when a turn's prompt did not extend the previous prompt + completion. */
  valid: boolean;
  /** The first turn whose prompt broke the prefix. */
  mismatchTurn?: number;
  /** Index in that turn's prompt of the first token that differs (or where it ends too early). */
  mismatchPosition?: number;
}

/** Where `promptIds` stops extending prev prompt + completion, or −1 when it extends them. */
function prefixMismatch(promptIds: readonly number[], previous: SampledTurn): number {
  const promptLength = previous.promptIds.length;
  const expectedLength = promptLength + previous.completionIds.length;
  for (let i = 0; i < expectedLength; i++) {
    const expected = i < promptLength ? previous.promptIds[i] : previous.completionIds[i - promptLength];
    if (i >= promptIds.length || promptIds[i] !== expected) return i;
  }
  return -1;
}

/**
 * Assemble a multi-turn episode into one token sequence, as rLLM's `assemble_steps` (the fix of rLLM
 * PR #272 for re-tokenization drift) and verl's agent loop: the prompt is turn 0's prompt; for each later
 * turn, its prompt must start with the previous prompt + completion token for token, the extra tokens
 * (tool output, chat-template glue) join the response with mask 0 and the completion with mask 1. Tokens
 * are never re-derived from text. A turn that breaks the prefix makes the trajectory invalid: the
 * response keeps the tokens before that turn, with every mask and logprob 0, so the caller can count it
 * and it trains on nothing.
 */
export function assembleTrajectory(turns: readonly SampledTurn[]): AssembledTrajectory {
  if (turns.length === 0) throw new ConfigError('assembleTrajectory: an episode needs at least one turn');
  turns.forEach((turn, i) => {
    if (turn.completionLogprobs && turn.completionLogprobs.length !== turn.completionIds.length) {
      throw new ConfigError(
        `assembleTrajectory: turn ${i} has ${turn.completionIds.length} completion tokens but ` +
          `${turn.completionLogprobs.length} logprobs; the sampler must return one logprob per token`,
      );
    }
  });
  const withLogprobs = turns.every((turn) => turn.completionLogprobs !== undefined);
  const responseIds: number[] = [];
  const responseMask: number[] = [];
  const responseLogprobs: number[] = [];
  for (let i = 0; i < turns.length; i++) {
    const turn = turns[i]!;
    if (i > 0) {
      const previous = turns[i - 1]!;
      const mismatch = prefixMismatch(turn.promptIds, previous);
      if (mismatch >= 0) {
        return {
          promptIds: [...turns[0]!.promptIds],
          responseIds,
          responseMask: responseMask.map(() => 0),
          responseLogprobs: withLogprobs ? responseLogprobs.map(() => 0) : undefined,
          valid: false,
          mismatchTurn: i,
          mismatchPosition: mismatch,
        };
      }
      const observation = turn.promptIds.slice(previous.promptIds.length + previous.completionIds.length);
      responseIds.push(...observation);
      for (const _ of observation) {
        responseMask.push(0);
        responseLogprobs.push(0);
      }
    }
    responseIds.push(...turn.completionIds);
    turn.completionIds.forEach((_, t) => {
      responseMask.push(1);
      responseLogprobs.push(turn.completionLogprobs?.[t] ?? 0);
    });
  }
  return {
    promptIds: [...turns[0]!.promptIds],
    responseIds,
    responseMask,
    responseLogprobs: withLogprobs ? responseLogprobs : undefined,
    valid: true,
  };
}
