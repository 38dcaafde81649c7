import type { Datum } from '../engine.ts';
import type { ModelConfig } from './model-config.ts';

/** A model small enough for finite differences and quick learning tests. */
export const MICRO_MODEL: ModelConfig = { vocab_size: 12, n_ctx: 16, d_model: 8, n_layer: 2, n_head: 2 };

/** A byte-vocabulary model that still trains in a few seconds. */
export const SMALL_BYTE_MODEL: ModelConfig = {
  vocab_size: 260,
  n_ctx: 64,
  d_model: 32,
  n_layer: 1,
  n_head: 2,
};

/** The Tinker datum for a whole sequence s: model_input = s[:-1], target_tokens = s[1:]. */
export function sequenceDatum(
  seq: number[],
  extra: Partial<Record<'weights' | 'logprobs' | 'advantages', number[]>> = {},
): Datum {
  const inputs: Datum['loss_fn_inputs'] = { target_tokens: { data: seq.slice(1), dtype: 'int64' } };
  for (const [k, v] of Object.entries(extra)) inputs[k as keyof typeof extra] = { data: v, dtype: 'float32' };
  return {
    model_input: { chunks: [{ type: 'encoded_text', tokens: seq.slice(0, -1) }] },
    loss_fn_inputs: inputs,
  };
}
