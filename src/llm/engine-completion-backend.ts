import { ConfigError, SandgymError } from '../errors.ts';
import type { CompletionBackend, CompletionOutput, CompletionParams } from './completion-backend.ts';
import { LlmApiError } from './llm-api-error.ts';

/**
 * The sampling half of the training engine (`TrainingEngine.sample` in `src/train/engine.ts`), in
 * Tinker's shapes. Declared here by structure, since `llm/` sits below `train/`: any engine with this
 * method plugs in.
 */
export interface SamplingEngine {
  sample(
    promptTokens: number[],
    samplingParams: {
      max_tokens: number;
      temperature?: number;
      top_p?: number;
      seed?: number;
      stop?: number[] | string[];
    },
    numSamples: number,
  ): Promise<{ sequences: { stop_reason: string; tokens: number[]; logprobs: number[] }[] }>;
}

/** The training engine as a completion backend: no HTTP, the weights being trained sample directly. */
export class EngineCompletionBackend implements CompletionBackend {
  constructor(private readonly engine: SamplingEngine) {}

  async complete(promptIds: number[], params: CompletionParams): Promise<CompletionOutput> {
    if (params.stop?.length) {
      // Tinker's SamplingParams.stop holds token ids or strings, not both, and the turn must end on its ids.
      throw new ConfigError(
        'training engine sampler: stop strings are not supported; the turn ends on the template’s end-of-turn ids',
      );
    }
    if (params.signal?.aborted) throw aborted(params.signal);
    const response = await this.engine.sample(
      promptIds,
      {
        max_tokens: params.maxTokens,
        ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
        ...(params.topP !== undefined ? { top_p: params.topP } : {}),
        ...(params.seed !== undefined ? { seed: params.seed } : {}),
        stop: params.stopTokenIds,
      },
      1,
    );
    // The engine takes no signal; a deadline that passed meanwhile still wins.
    if (params.signal?.aborted) throw aborted(params.signal);
    const sequence = response.sequences[0];
    if (!sequence) throw new SandgymError('training engine: sample() returned no sequence for numSamples=1');
    if (sequence.logprobs.length !== sequence.tokens.length) {
      throw new SandgymError(
        `training engine: sample() returned ${sequence.tokens.length} tokens but ${sequence.logprobs.length} logprobs`,
      );
    }
    return {
      completionIds: sequence.tokens,
      logprobs: sequence.logprobs,
      finishReason: sequence.stop_reason,
    };
  }
}

function aborted(signal: AbortSignal): LlmApiError {
  return new LlmApiError('training engine sampler: aborted by the caller', {
    kind: 'aborted',
    url: 'in-process:engine',
    cause: signal.reason,
  });
}
