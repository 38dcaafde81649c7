import type { Datum } from '../engine.ts';

/** One training sequence: the prompt, then the response with its mask (1 = model tokens). */
export interface TokenSequence {
  promptIds: readonly number[];
  responseIds: readonly number[];
  responseMask: readonly number[];
}

const floats = (data: number[]) => ({ data, dtype: 'float32' as const });

/**
 * Tinker's alignment: the model reads s[:-1] and position i predicts s[i+1]. `perResponseToken` values
 * (one per response token) move to the target positions that predict them; prompt positions get 0.
 */
function alignToTargets(seq: TokenSequence, perResponseToken: readonly number[]): number[] {
  const p = seq.promptIds.length;
  const n = p + seq.responseIds.length - 1;
  return Array.from({ length: n }, (_, i) => (i + 1 >= p ? perResponseToken[i + 1 - p]! : 0));
}

function base(seq: TokenSequence): Pick<Datum, 'model_input'> & { target: number[] } {
  const tokens = [...seq.promptIds, ...seq.responseIds];
  return {
    model_input: { chunks: [{ type: 'encoded_text', tokens: tokens.slice(0, -1) }] },
    target: tokens.slice(1),
  };
}

/** A supervised datum: cross-entropy on the model's tokens only (weight = mask × `scale`). */
export function sftDatum(seq: TokenSequence, scale = 1): Datum {
  const { model_input, target } = base(seq);
  return {
    model_input,
    loss_fn_inputs: {
      target_tokens: { data: target, dtype: 'int64' },
      weights: floats(
        alignToTargets(
          seq,
          seq.responseMask.map((m) => m * scale),
        ),
      ),
    },
  };
}

/**
 * A policy-gradient datum: per target token the advantage (already multiplied by the loss-aggregation
 * weight; 0 on prompt and observation tokens, which masks them) and the sampler's logprob.
 */
export function rlDatum(
  seq: TokenSequence,
  advantages: readonly number[],
  samplerLogprobs: readonly number[],
): Datum {
  const { model_input, target } = base(seq);
  return {
    model_input,
    loss_fn_inputs: {
      target_tokens: { data: target, dtype: 'int64' },
      advantages: floats(alignToTargets(seq, advantages)),
      logprobs: floats(alignToTargets(seq, samplerLogprobs)),
    },
  };
}

/** Tokens of a datum's input, for batching by token count. */
export function datumLength(d: Datum): number {
  return d.model_input.chunks.reduce((n, c) => n + c.tokens.length, 0);
}
