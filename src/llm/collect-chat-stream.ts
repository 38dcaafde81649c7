import { clipBody, LlmApiError } from './llm-api-error.ts';
import { type ChatCompletion, chatChunkSchema, errorBodySchema } from './openai-protocol.ts';
import { parseSseData } from './parse-sse.ts';

interface ToolCallParts {
  id: string | undefined;
  name: string;
  arguments: string;
}

/**
 * Folds a `stream: true` chat completion (its whole SSE text) into the non-streaming shape, so one
 * mapper reads both: content and tool-call argument deltas are concatenated per call index, token ids
 * and logprobs appended, usage taken from the final chunk. A stream that ends without `[DONE]` or
 * without a finish reason is malformed (and retryable); an error object inside it is an HTTP error
 * with the status it carries.
 */
export function collectChatStream(streamText: string, url: string): ChatCompletion {
  let content = '';
  let reasoning: string | undefined;
  const calls: ToolCallParts[] = [];
  const tokenIds: number[] = [];
  const logprobs: { logprob: number }[] = [];
  let sawTokenIds = false;
  let sawLogprobs = false;
  let finishReason: string | undefined;
  let usage: ChatCompletion['usage'];
  let promptTokenIds: number[] | undefined;
  let done = false;

  for (const payload of parseSseData(streamText)) {
    if (payload.trim() === '[DONE]') {
      done = true;
      break;
    }
    const chunk = parseChunk(payload, url);
    usage = chunk.usage ?? usage;
    promptTokenIds ??= chunk.prompt_token_ids ?? undefined;
    for (const choice of chunk.choices) {
      content += choice.delta?.content ?? '';
      const thought = choice.delta?.reasoning_content ?? choice.delta?.reasoning;
      if (thought != null) reasoning = (reasoning ?? '') + thought;
      for (const d of choice.delta?.tool_calls ?? []) {
        const call = calls[d.index] ?? { id: undefined, name: '', arguments: '' };
        calls[d.index] = call;
        call.id ??= d.id ?? undefined;
        call.name += d.function?.name ?? '';
        call.arguments += d.function?.arguments ?? '';
      }
      if (choice.token_ids) {
        sawTokenIds = true;
        tokenIds.push(...choice.token_ids);
      }
      if (choice.logprobs?.content) {
        sawLogprobs = true;
        logprobs.push(...choice.logprobs.content);
      }
      finishReason = choice.finish_reason ?? finishReason;
    }
  }
  if (!done || finishReason === undefined) {
    const missing = done ? 'a finish_reason' : 'the closing [DONE]';
    throw new LlmApiError(`POST ${url}: the event stream ended without ${missing}`, {
      kind: 'malformed-response',
      url,
      responseBody: streamText,
    });
  }
  return {
    choices: [
      {
        message: {
          role: 'assistant',
          content,
          ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
          tool_calls: calls
            .filter(Boolean)
            .map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
        },
        finish_reason: finishReason,
        logprobs: sawLogprobs ? { content: logprobs } : undefined,
        token_ids: sawTokenIds ? tokenIds : undefined,
      },
    ],
    usage,
    prompt_token_ids: promptTokenIds,
  };
}

function parseChunk(payload: string, url: string) {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch (e) {
    throw new LlmApiError(`POST ${url}: an event of the stream is not JSON: ${clipBody(payload)}`, {
      kind: 'malformed-response',
      url,
      responseBody: payload,
      cause: e,
    });
  }
  const error = errorBodySchema.safeParse(json);
  if (error.success) {
    const e = error.data.error;
    const message = typeof e === 'string' ? e : (e.message ?? 'no message');
    const code = typeof e === 'string' ? undefined : Number(e.code);
    const status = code !== undefined && Number.isInteger(code) && code >= 400 ? code : 500;
    throw new LlmApiError(
      `POST ${url}: the server reported an error mid-stream (${status}): ${clipBody(message)}`,
      {
        kind: 'http',
        url,
        status,
        responseBody: payload,
      },
    );
  }
  const chunk = chatChunkSchema.safeParse(json);
  if (!chunk.success) {
    throw new LlmApiError(
      `POST ${url}: an event of the stream is not a chat.completion.chunk: ${clipBody(payload)}`,
      {
        kind: 'malformed-response',
        url,
        responseBody: payload,
      },
    );
  }
  return chunk.data;
}
