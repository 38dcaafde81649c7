import type { SamplerFactory } from '../../agent/samplers.ts';
import type { Config } from '../../config/index.ts';
import { EngineCompletionBackend, loadChatTemplate, TokenSampler } from '../../llm/index.ts';
import type { TrainingEngine } from '../engine.ts';

/**
 * Episodes sampled by the weights being trained: the model's chat template rendered locally, token ids in
 * and out of the engine (in-process or over the Tinker API), kept exactly for training.
 */
export async function engineSamplers(
  engine: TrainingEngine,
  config: Config,
  policy: string,
): Promise<SamplerFactory> {
  const info = engine.getInfo();
  const shared = new TokenSampler({
    template: await loadChatTemplate(info.tokenizer_dir),
    backend: new EngineCompletionBackend(engine),
    maxTokensPerTurn: config.agent.max_tokens_per_turn,
    maxTrajectoryTokens: config.data.max_response_length,
    maxContextTokens: info.max_seq_len,
  });
  return { policy, forTask: () => shared.session() };
}
