/**
 * Where a token-level sampler gets completions: token ids in, token ids and logprobs out. Two kinds
 * plug in: a vLLM/SGLang server over HTTP (`HttpCompletionBackend`) and the training engine in this
 * process (`EngineCompletionBackend`).
 */

export interface CompletionParams {
  /** Cap on completion tokens, already cut to the budgets left. */
  maxTokens: number;
  temperature?: number;
  topP?: number;
  seed?: number;
  stop?: string[];
  /** Ids that end the turn (the template's end-of-turn ids), whatever the server's defaults. */
  stopTokenIds: number[];
  signal?: AbortSignal;
}

export interface CompletionOutput {
  /** The sampled ids, the end-of-turn id included when the backend returns it. */
  completionIds: number[];
  /** The sampler's log-probability of each sampled id; same length as `completionIds`. */
  logprobs: number[];
  /** The backend's own word: `stop`, `length`, `abort`… */
  finishReason: string;
}

export interface CompletionBackend {
  complete(promptIds: number[], params: CompletionParams): Promise<CompletionOutput>;
}
