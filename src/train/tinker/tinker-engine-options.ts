import type { Config } from '../../config/index.ts';
import { modelSourceFromEnv, type RetryPolicy, resolveModelDir } from '../../llm/index.ts';
import type { RetrieveOptions } from './retrieve-future.ts';

export interface TinkerEngineOptions {
  /** The server's root, e.g. `http://127.0.0.1:8000` (the CLI reads TINKER_BASE_URL). */
  baseUrl: string;
  /** Sent as `X-API-Key` (the CLI reads TINKER_API_KEY). */
  apiKey?: string;
  /** The model to train, as the server names it; default: the server's only model. */
  baseModel?: string;
  /** LoRA rank of the adapter to train. Default 32. */
  loraRank?: number;
  /** Seeds the adapter's initial weights (`lora_config.seed`); default: the server chooses. */
  seed?: number;
  /**
   * The base model's tokenizer: a Hugging Face id or a local model directory (tokenizer.json,
   * tokenizer_config.json). Default: the one get_info names (hosted Tinker and `sandgym engine serve`
   * do; SkyRL does not).
   */
  tokenizer?: string;
  /** Fetches a Hugging Face id's tokenizer files into a local directory (the CLI: the Hub cache). */
  modelDir?: (id: string) => Promise<string>;
  /** The model's context length, when the server does not say it (SkyRL) or to use less of it. */
  maxContextTokens?: number;
  /**
   * Sampling requests (samples and prompt-logprob scoring) in flight at once; more calls wait their
   * turn. Default 400, as the Tinker SDK.
   */
  maxConcurrentSamples?: number;
  /** Deadline of each HTTP attempt. Default 60 s. */
  requestTimeoutMs?: number;
  /** Deadline for one operation's result (the whole retrieve_future wait). Default 1 hour. */
  futureTimeoutMs?: number;
  /** Deadline of one retrieve_future long poll before asking again. Default 45 s (as the Tinker SDK). */
  pollTimeoutMs?: number;
  /** How often the session tells the server it is alive. Default 10 s (as the Tinker SDK). */
  heartbeatIntervalMs?: number;
  /** Retries of 429, 5xx, network faults and timeouts. Default: 4 retries from 0.5 s, doubling. */
  retry?: RetryPolicy;
  /** Session tags and metadata the server records. */
  tags?: string[];
  userMetadata?: Record<string, unknown>;
  /** Told whenever retrieve_future answers "not done yet" (HTTP 408), with the server's queue state. */
  onQueueState?: RetrieveOptions['onQueueState'];
  /** Told about things worth a log line: missed heartbeats, server messages, failed clean-up. */
  onWarning?: (message: string) => void;
  /** How long 402 answers (out of credit) pause the run before it fails. Default 1 hour. */
  billingPauseMs?: number;
  /** Injected for tests and proxies; default the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * The engine's options from the config section `engine.tinker` and the environment, which only the
 * CLI passes in: TINKER_BASE_URL, when set, overrides `base_url` (whose default points at a local
 * `sandgym engine serve`), and `api_key` falls back to TINKER_API_KEY, as in the Tinker SDK.
 */
export function tinkerOptionsFromConfig(
  section: Config['engine']['tinker'],
  env: Record<string, string | undefined>,
): TinkerEngineOptions {
  const source = modelSourceFromEnv(env);
  return {
    // A Hugging Face id's tokenizer (and config.json, for the context) comes through the Hub cache,
    // downloaded once (HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE honoured).
    modelDir: (id) => resolveModelDir(id, source),
    baseUrl: env.TINKER_BASE_URL || section.base_url,
    apiKey: section.api_key ?? (env.TINKER_API_KEY || undefined),
    baseModel: section.base_model,
    loraRank: section.lora_rank,
    maxConcurrentSamples: section.max_concurrent_samples,
    ...(section.tokenizer ? { tokenizer: section.tokenizer } : {}),
    ...(section.max_context_tokens ? { maxContextTokens: section.max_context_tokens } : {}),
  };
}
