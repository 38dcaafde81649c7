import { LOSS_FNS } from '../loss-fns.ts';
import { MODEL_PRESETS, type ModelPreset, parameterCount } from '../reference/index.ts';
import {
  type GetInfoResponse,
  type GetServerCapabilitiesResponse,
  type LoraConfig,
  REFERENCE_TOKENIZER_ID,
} from '../tinker/index.ts';

/** What the server says about LoRA, since it accepts ranks it does not apply. */
export const LORA_NOTE =
  'rank accepted and recorded; the reference engine trains all weights (full fine-tuning)';

/**
 * get_server_capabilities for a server of one reference model: Tinker's fields (`model_name`,
 * `max_context_length`) and, for clients that need no other source, the vocabulary, parameter count,
 * tokenizer, the LoRA note and the loss functions.
 */
export function referenceCapabilities(preset: ModelPreset): GetServerCapabilitiesResponse {
  const c = MODEL_PRESETS[preset];
  const model = {
    model_name: `reference-${preset}`,
    max_context_length: c.n_ctx,
    vocab_size: c.vocab_size,
    param_count: parameterCount(c),
    tokenizer_id: REFERENCE_TOKENIZER_ID,
    lora: LORA_NOTE,
  };
  return { supported_models: [model], loss_fns: LOSS_FNS } as GetServerCapabilitiesResponse;
}

/** get_info of a model: Tinker's ModelData plus SkyRL's base model and LoRA config, and the shape. */
export function referenceModelInfo(
  preset: ModelPreset,
  modelId: string,
  lora: LoraConfig | null,
): GetInfoResponse {
  const c = MODEL_PRESETS[preset];
  const name = `reference-${preset}`;
  return {
    type: 'get_info',
    model_id: modelId,
    model_data: {
      arch: `gpt2-style decoder (sandgym reference engine; LoRA ${LORA_NOTE})`,
      model_name: name,
      tokenizer_id: REFERENCE_TOKENIZER_ID,
      base_model: name,
      lora_config: lora,
      vocab_size: c.vocab_size,
      max_context_length: c.n_ctx,
      param_count: parameterCount(c),
    },
    is_lora: lora !== null,
    lora_rank: lora?.rank ?? null,
    model_name: name,
  };
}
