import { ConfigError } from '../errors.ts';
import type { ScriptedReply, ScriptedRequest } from './scripted-policy.ts';

/** What the scripted server needs of a tokenizer: a `ChatTemplate` fits. */
export interface ScriptedTokenizer {
  encode(text: string): number[];
  decode(ids: number[]): string;
}

type ChatRequest = Extract<ScriptedRequest, { endpoint: 'chat' }>;
type CompletionRequest = Extract<ScriptedRequest, { endpoint: 'completion' }>;

/**
 * Wire bodies the scripted server sends, shaped like vLLM's: OpenAI fields plus `prompt_token_ids` and
 * `token_ids` when the request says `return_token_ids`, and logprobs when it asks for them.
 */

function toolCallsOf(reply: ScriptedReply) {
  return (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${i}`,
    type: 'function' as const,
    function: {
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    },
  }));
}

function chatFinishReason(reply: ScriptedReply): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
}

function logprobsOf(reply: ScriptedReply, count: number): number[] {
  return reply.logprobs ?? new Array<number>(count).fill(0);
}

export function chatCompletionBody(
  reply: ScriptedReply,
  request: ChatRequest,
  id: string,
): Record<string, unknown> {
  const toolCalls = toolCallsOf(reply);
  const tokenIds = reply.tokenIds ?? [];
  const wantTokens = request.body.return_token_ids === true;
  const wantLogprobs = request.body.logprobs === true && reply.tokenIds !== undefined;
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          // OpenAI sends null content beside tool calls; clients must cope.
          content: reply.content ?? (toolCalls.length ? null : ''),
          ...(reply.reasoning !== undefined ? { reasoning_content: reply.reasoning } : {}),
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: chatFinishReason(reply),
        logprobs: wantLogprobs
          ? {
              content: logprobsOf(reply, tokenIds.length).map((l, i) => ({
                token: `token_id:${tokenIds[i]}`,
                logprob: l,
                top_logprobs: [],
              })),
            }
          : null,
        ...(wantTokens && reply.tokenIds ? { token_ids: tokenIds } : {}),
      },
    ],
    usage: usageOf(reply.promptTokenIds?.length ?? 0, tokenIds.length),
    ...(wantTokens && reply.promptTokenIds ? { prompt_token_ids: reply.promptTokenIds } : {}),
  };
}

/** The same answer as `chatCompletionBody`, cut into `chat.completion.chunk` events as vLLM streams it. */
export function chatCompletionChunks(
  reply: ScriptedReply,
  request: ChatRequest,
  id: string,
): Record<string, unknown>[] {
  const full = chatCompletionBody(reply, request, id);
  const choice = (full.choices as Record<string, unknown>[])[0]!;
  const message = choice.message as { content: string | null; tool_calls?: ReturnType<typeof toolCallsOf> };
  const base = { id, object: 'chat.completion.chunk', created: full.created, model: request.model };
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: null, ...extra }],
  });
  const chunks: Record<string, unknown>[] = [
    {
      ...chunk({ role: 'assistant', content: '' }),
      ...(full.prompt_token_ids ? { prompt_token_ids: full.prompt_token_ids } : {}),
    },
  ];
  if (reply.reasoning) chunks.push(chunk({ reasoning_content: reply.reasoning }));
  const content = message.content ?? '';
  const cut = Math.ceil(content.length / 2);
  for (const piece of [content.slice(0, cut), content.slice(cut)])
    if (piece) chunks.push(chunk({ content: piece }));
  (message.tool_calls ?? []).forEach((call, index) => {
    const half = Math.ceil(call.function.arguments.length / 2);
    chunks.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id,
            type: 'function',
            function: { name: call.function.name, arguments: call.function.arguments.slice(0, half) },
          },
        ],
      }),
    );
    chunks.push(
      chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] }),
    );
  });
  const tokenIds = choice.token_ids as number[] | undefined;
  const logprobs = (choice.logprobs as { content: unknown[] } | null)?.content;
  if (tokenIds || logprobs) {
    const n = Math.ceil((tokenIds ?? logprobs ?? []).length / 2);
    for (const [from, to] of [
      [0, n],
      [n, undefined],
    ] as const) {
      chunks.push(
        chunk(
          {},
          {
            ...(tokenIds ? { token_ids: tokenIds.slice(from, to) } : {}),
            ...(logprobs ? { logprobs: { content: logprobs.slice(from, to) } } : {}),
          },
        ),
      );
    }
  }
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }] });
  const streamOptions = request.body.stream_options as { include_usage?: boolean } | undefined;
  if (streamOptions?.include_usage) chunks.push({ ...base, choices: [], usage: full.usage });
  return chunks;
}

/**
 * A `/v1/completions` answer for a token-id prompt. A reply given as text is encoded and, unless it
 * says otherwise, ends with the request's first `stop_token_ids` entry, as a model ending its turn
 * would; ids beyond `max_tokens` are cut and the finish reason becomes `length`.
 */
export function completionBody(
  reply: ScriptedReply,
  request: CompletionRequest,
  id: string,
  tokenizer: ScriptedTokenizer | undefined,
): Record<string, unknown> {
  let ids = reply.tokenIds;
  if (ids === undefined) {
    if (!tokenizer)
      throw new ConfigError(
        'scripted server: a completion reply given as text needs a server started with a tokenizer',
      );
    ids = tokenizer.encode(reply.content ?? '');
    const eos = (request.body.stop_token_ids as number[] | undefined)?.[0];
    if (eos !== undefined && (reply.finishReason ?? 'stop') === 'stop') ids = [...ids, eos];
  }
  let logprobs = logprobsOf(reply, ids.length);
  let finishReason = reply.finishReason ?? 'stop';
  if (ids.length > request.maxTokens) {
    ids = ids.slice(0, request.maxTokens);
    logprobs = logprobs.slice(0, request.maxTokens);
    finishReason = 'length';
  }
  const wantTokens = request.body.return_token_ids === true;
  const wantLogprobs = typeof request.body.logprobs === 'number';
  const stopIds = (request.body.stop_token_ids as number[] | undefined) ?? [];
  const last = ids.at(-1);
  return {
    id,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [
      {
        index: 0,
        text: tokenizer ? tokenizer.decode(ids) : (reply.content ?? ''),
        logprobs: wantLogprobs
          ? {
              tokens: ids.map((t) => `token_id:${t}`),
              token_logprobs: logprobs,
              text_offset: [],
              top_logprobs: [],
            }
          : null,
        finish_reason: finishReason,
        stop_reason: finishReason === 'stop' && last !== undefined && stopIds.includes(last) ? last : null,
        ...(wantTokens ? { token_ids: ids, prompt_token_ids: request.promptIds } : {}),
      },
    ],
    usage: usageOf(request.promptIds.length, ids.length),
  };
}

function usageOf(prompt: number, completion: number) {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
