/** Hugging Face checkpoints (config.json + model.safetensors) run on the CPU: Qwen3, Qwen2, Llama. */
export { HfCausalLM, type HfModelConfig, type KvCache, parseHfConfig } from './causal-lm.ts';
export { readSafetensors, type Tensor } from './safetensors.ts';
