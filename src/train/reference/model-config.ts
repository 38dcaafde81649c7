import type { Config } from '../../config/index.ts';
import { ConfigError } from '../../errors.ts';

/**
 * Shape of the reference model: a GPT-2-style decoder (token + learned position embeddings, pre-LayerNorm
 * blocks of causal multi-head attention and a GELU MLP of width 4·d_model, a final LayerNorm and an output
 * head tied to the token embedding).
 */
export interface ModelConfig {
  vocab_size: number;
  /** Context length: the longest sequence the position embedding covers. */
  n_ctx: number;
  d_model: number;
  n_layer: number;
  n_head: number;
}

/** The byte tokenizer's vocabulary: 256 bytes and 4 special tokens (see tokenizer.ts). */
export const BYTE_VOCAB_SIZE = 260;

export const MODEL_PRESETS = {
  /** ≈0.56M parameters: quick enough on two CPU cores for SFT then RL in minutes. */
  tiny: { vocab_size: BYTE_VOCAB_SIZE, n_ctx: 1024, d_model: 128, n_layer: 2, n_head: 4 },
  /** ≈1.1M parameters with a 2048-token context. */
  small: { vocab_size: BYTE_VOCAB_SIZE, n_ctx: 2048, d_model: 128, n_layer: 4, n_head: 4 },
} as const satisfies Record<string, ModelConfig>;

export type ModelPreset = keyof typeof MODEL_PRESETS;

/** The kernels work on 4-float SIMD lanes, hence the multiples of 4. */
export function validateModelConfig(c: ModelConfig): ModelConfig {
  const positive = ['vocab_size', 'n_ctx', 'd_model', 'n_layer', 'n_head'] as const;
  for (const k of positive) {
    if (!Number.isInteger(c[k]) || c[k] <= 0)
      throw new ConfigError(`model.${k} must be a positive integer, got ${c[k]}`);
  }
  if (c.vocab_size % 4 !== 0)
    throw new ConfigError(`model.vocab_size must be a multiple of 4, got ${c.vocab_size}`);
  if (c.d_model % c.n_head !== 0 || (c.d_model / c.n_head) % 4 !== 0) {
    throw new ConfigError(
      `model.d_model (${c.d_model}) must split into n_head (${c.n_head}) heads of a multiple of 4 dimensions`,
    );
  }
  return c;
}

export function parameterCount(c: ModelConfig): number {
  const d = c.d_model;
  return c.vocab_size * d + c.n_ctx * d + c.n_layer * (12 * d * d + 13 * d) + 2 * d;
}

/** The model shape named by the config section `engine.reference` (byte vocabulary unless given one). */
export function modelConfigFromSection(
  section: Config['engine']['reference'],
  vocabSize: number = BYTE_VOCAB_SIZE,
): ModelConfig {
  return validateModelConfig({
    vocab_size: vocabSize,
    n_ctx: section.context,
    d_model: section.d_model,
    n_layer: section.n_layers,
    n_head: section.n_heads,
  });
}
