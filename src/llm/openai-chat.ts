import { randomUUID } from 'node:crypto';
import { ConfigError } from '../errors.ts';
import { collectChatStream } from './collect-chat-stream.ts';
import { clipBody, LlmApiError } from './llm-api-error.ts';
import { mapFinishReason } from './map-finish-reason.ts';
import { type ChatCompletion, chatCompletionSchema } from './openai-protocol.ts';
import { type PostOptions, postWithRetry, readJson } from './post-with-retry.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import type { ChatMessage, SampleRequest, SampleResult, Sampler, ToolCall, TurnTokens } from './types.ts';

export interface OpenAIChatSamplerOptions {
  /** Base URL of the API, usually ending in `/v1` (e.g. `http://127.0.0.1:8000/v1`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; omit for servers without auth. */
  apiKey?: string;
  /** Model name as the server lists it under `GET /models`. */
  model: string;
  /** Deadline of each attempt, whole answer included. Default 600 000 ms (long agent turns). */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx, network faults, timeouts and malformed answers. */
  retry?: Partial<RetryPolicy>;
  /** Ask for a server-sent event stream (for proxies that cut idle connections). Default false. */
  stream?: boolean;
  /**
   * Ask vLLM (≥ 0.10.2) for the prompt and completion token ids and per-token logprobs
   * (`return_token_ids`, `logprobs`). Off by default: hosted APIs reject unknown fields. Token ids a
   * server returns unasked are kept either way.
   */
  returnTokenIds?: boolean;
  /**
   * Server-specific body fields, sent as given: vLLM `top_k` or `chat_template_kwargs`, SGLang
   * `min_p`… They may not name a field the sampler sets itself.
   */
  providerOptions?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Injected for tests and proxies; default the global `fetch`. */
  fetch?: typeof fetch;
  onRetry?: PostOptions['onRetry'];
}

/** Body fields the sampler owns, with the option or request field that sets each. */
const OWNED_FIELDS: Record<string, string> = {
  model: 'the model option',
  messages: 'request.messages',
  tools: 'request.tools',
  stream: 'the stream option',
  stream_options: 'the stream option',
  max_tokens: 'request.maxTokens',
  max_completion_tokens: 'request.maxTokens',
  temperature: 'request.temperature',
  top_p: 'request.topP',
  stop: 'request.stop',
  seed: 'request.seed',
};

/**
 * Samples from any OpenAI-compatible `/chat/completions` endpoint (OpenAI, vLLM, SGLang, llama.cpp,
 * gateways). Stateless: the server renders the chat template, so token ids, when the server returns
 * them, are the server's own and `session()` returns this same sampler.
 */
export class OpenAIChatSampler implements Sampler {
  private readonly url: string;
  private readonly post: PostOptions;

  constructor(private readonly options: OpenAIChatSamplerOptions) {
    if (!options.model)
      throw new ConfigError('chat sampler: no model name given; pass the name the server serves');
    const parsed = URL.canParse(options.baseUrl) ? new URL(options.baseUrl) : undefined;
    if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
      throw new ConfigError(
        `chat sampler: base URL "${options.baseUrl}" is not an http(s) URL; expected e.g. http://127.0.0.1:8000/v1`,
      );
    }
    for (const key of Object.keys(options.providerOptions ?? {})) {
      const owner = OWNED_FIELDS[key];
      if (owner)
        throw new ConfigError(`chat sampler: providerOptions may not set "${key}"; use ${owner} instead`);
    }
    const base = parsed!.href.replace(/\/+$/, '');
    this.url = `${base}/chat/completions`;
    this.post = {
      timeoutMs: options.timeoutMs ?? 600_000,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      headers: {
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        ...options.headers,
      },
      fetch: options.fetch,
      onRetry: options.onRetry,
      explainStatus: (status) => explainStatus(status, options.model, base),
    };
  }

  session(): Sampler {
    return this;
  }

  async sample(request: SampleRequest): Promise<SampleResult> {
    const started = performance.now();
    const read = this.options.stream
      ? async (res: Response, url: string) => collectChatStream(await res.text(), url)
      : readJson;
    const json = await postWithRetry(
      this.url,
      this.body(request),
      { ...this.post, signal: request.signal },
      read,
    );
    const parsed = chatCompletionSchema.safeParse(json);
    if (!parsed.success) {
      throw new LlmApiError(
        `POST ${this.url}: the answer is not a chat completion: ${clipBody(JSON.stringify(json))}`,
        {
          kind: 'malformed-response',
          url: this.url,
          responseBody: JSON.stringify(json),
        },
      );
    }
    return toSampleResult(parsed.data, this.url, performance.now() - started);
  }

  private body(request: SampleRequest): Record<string, unknown> {
    const { options } = this;
    return {
      ...options.providerOptions,
      model: options.model,
      messages: request.messages.map(toWireMessage),
      ...(request.tools?.length ? { tools: request.tools } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.topP !== undefined ? { top_p: request.topP } : {}),
      ...(request.stop?.length ? { stop: request.stop } : {}),
      ...(request.seed !== undefined ? { seed: request.seed } : {}),
      ...(options.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      ...(options.returnTokenIds ? { return_token_ids: true, logprobs: true } : {}),
    };
  }
}

function explainStatus(status: number, model: string, baseUrl: string): string | undefined {
  if (status === 401 || status === 403) return 'the API key was rejected; check the key given to the sampler';
  if (status === 404) {
    return `either model "${model}" is not served there or the base URL is wrong (it usually ends in /v1); GET ${baseUrl}/models lists the served models`;
  }
  return undefined;
}

function toWireMessage(m: ChatMessage): Record<string, unknown> {
  return {
    role: m.role,
    content: m.content,
    ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}),
    ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
    ...(m.name !== undefined ? { name: m.name } : {}),
  };
}

function toSampleResult(completion: ChatCompletion, url: string, latencyMs: number): SampleResult {
  const choice = completion.choices[0]!;
  const toolCalls: ToolCall[] = (choice.message.tool_calls ?? []).map((c) => ({
    id: c.id || `call_${randomUUID().slice(0, 8)}`,
    type: 'function',
    function: {
      name: c.function.name,
      arguments:
        typeof c.function.arguments === 'string'
          ? c.function.arguments
          : JSON.stringify(c.function.arguments ?? {}),
    },
  }));
  const tokens = turnTokens(completion, url);
  const reasoning = choice.message.reasoning_content ?? choice.message.reasoning;
  return {
    message: {
      role: 'assistant',
      content: choice.message.content ?? '',
      // Kept for the trajectory; not sent back, since some APIs refuse it in requests.
      ...(reasoning != null ? { reasoning_content: reasoning } : {}),
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    },
    finishReason: mapFinishReason(choice.finish_reason, toolCalls.length > 0),
    rawFinishReason: choice.finish_reason ?? undefined,
    usage: {
      promptTokens: completion.usage?.prompt_tokens ?? tokens?.promptIds.length ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? tokens?.completionIds.length ?? 0,
    },
    ...(tokens ? { tokens } : {}),
    latencyMs,
  };
}

/** The server's token ids and logprobs, when it sent all three parts and they agree in length. */
function turnTokens(completion: ChatCompletion, url: string): TurnTokens | undefined {
  const choice = completion.choices[0]!;
  const promptIds = completion.prompt_token_ids;
  const completionIds = choice.token_ids;
  const logprobs = choice.logprobs?.content;
  if (!promptIds || !completionIds || !logprobs) return undefined;
  if (logprobs.length !== completionIds.length) {
    throw new LlmApiError(
      `POST ${url}: the server returned ${completionIds.length} completion token ids but ${logprobs.length} logprobs`,
      { kind: 'malformed-response', url, isRetryable: false },
    );
  }
  return { promptIds, completionIds, completionLogprobs: logprobs.map((l) => l.logprob) };
}
