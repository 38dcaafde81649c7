import { ConfigError } from '../errors.ts';
import type { CompletionBackend, CompletionOutput, CompletionParams } from './completion-backend.ts';
import { clipBody, LlmApiError } from './llm-api-error.ts';
import { type Completion, completionSchema } from './openai-protocol.ts';
import { type PostOptions, postWithRetry, readJson } from './post-with-retry.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';

export interface HttpCompletionBackendOptions {
  /** Base URL of the server's OpenAI-compatible API, usually ending in `/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Deadline of each attempt. Default 600 000 ms. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Server-specific body fields (`top_k`, `min_p`, `repetition_penalty`…); may not name owned fields. */
  providerOptions?: Record<string, unknown>;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  onRetry?: PostOptions['onRetry'];
}

const OWNED_FIELDS = [
  'model',
  'prompt',
  'max_tokens',
  'temperature',
  'top_p',
  'seed',
  'stop',
  'stop_token_ids',
  'logprobs',
  'return_token_ids',
  'stream',
  'n',
];

/**
 * vLLM's and SGLang's `/v1/completions` with a token-id prompt: `prompt` is the id list, the
 * completion comes back as `choices[0].token_ids` (`return_token_ids`, vLLM ≥ 0.10.2 and SGLang) with
 * `logprobs.token_logprobs` (`logprobs: 0` asks for the sampled token's logprob only). When the server
 * echoes `prompt_token_ids`, they must be the ids sent: anything else means it re-tokenized.
 */
export class HttpCompletionBackend implements CompletionBackend {
  private readonly url: string;
  private readonly post: PostOptions;

  constructor(private readonly options: HttpCompletionBackendOptions) {
    const parsed = URL.canParse(options.baseUrl) ? new URL(options.baseUrl) : undefined;
    if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
      throw new ConfigError(
        `completion backend: base URL "${options.baseUrl}" is not an http(s) URL; expected e.g. http://127.0.0.1:8000/v1`,
      );
    }
    if (!options.model)
      throw new ConfigError('completion backend: no model name given; pass the name the server serves');
    const owned = Object.keys(options.providerOptions ?? {}).filter((k) => OWNED_FIELDS.includes(k));
    if (owned.length) {
      throw new ConfigError(
        `completion backend: providerOptions may not set ${owned.join(', ')}; the sampler sets them`,
      );
    }
    const base = parsed!.href.replace(/\/+$/, '');
    this.url = `${base}/completions`;
    this.post = {
      timeoutMs: options.timeoutMs ?? 600_000,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      headers: {
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        ...options.headers,
      },
      fetch: options.fetch,
      onRetry: options.onRetry,
      explainStatus: (status) => {
        if (status === 401 || status === 403)
          return 'the API key was rejected; check the key given to the backend';
        if (status === 404) {
          return `either model "${options.model}" is not served there or the base URL is wrong (it usually ends in /v1); GET ${base}/models lists the served models`;
        }
        return undefined;
      },
    };
  }

  async complete(promptIds: number[], params: CompletionParams): Promise<CompletionOutput> {
    const body = {
      ...this.options.providerOptions,
      model: this.options.model,
      prompt: promptIds,
      max_tokens: params.maxTokens,
      ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
      ...(params.topP !== undefined ? { top_p: params.topP } : {}),
      ...(params.seed !== undefined ? { seed: params.seed } : {}),
      ...(params.stop?.length ? { stop: params.stop } : {}),
      stop_token_ids: params.stopTokenIds,
      logprobs: 0,
      return_token_ids: true,
    };
    const json = await postWithRetry(this.url, body, { ...this.post, signal: params.signal }, readJson);
    const parsed = completionSchema.safeParse(json);
    if (!parsed.success)
      throw this.protocolError(`the answer is not a text completion: ${clipBody(JSON.stringify(json))}`);
    return this.toOutput(parsed.data, promptIds);
  }

  private toOutput(completion: Completion, promptIds: number[]): CompletionOutput {
    const choice = completion.choices[0]!;
    const ids = choice.token_ids;
    if (!ids) {
      throw this.protocolError(
        'the answer has no token_ids; the server must support return_token_ids (vLLM ≥ 0.10.2, SGLang)',
      );
    }
    const logprobs = choice.logprobs?.token_logprobs;
    if (!logprobs || logprobs.length !== ids.length || logprobs.some((l) => l === null)) {
      throw this.protocolError(
        `the answer has ${ids.length} token ids but ${logprobs ? `${logprobs.length} logprobs` : 'no logprobs'}`,
      );
    }
    const echoed = choice.prompt_token_ids;
    if (echoed && (echoed.length !== promptIds.length || echoed.some((id, i) => id !== promptIds[i]))) {
      throw this.protocolError(
        `the server sampled from other prompt ids than were sent (${echoed.length} vs ${promptIds.length}); it must take the token-id prompt as is`,
      );
    }
    return {
      completionIds: ids,
      logprobs: logprobs as number[],
      finishReason: choice.finish_reason ?? 'unknown',
    };
  }

  /** A server that speaks another protocol will not change its mind on retry. */
  private protocolError(what: string): LlmApiError {
    return new LlmApiError(`POST ${this.url}: ${what}`, {
      kind: 'malformed-response',
      url: this.url,
      isRetryable: false,
    });
  }
}
