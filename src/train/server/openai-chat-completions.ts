import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ChatTemplate } from '../../llm/chat-template.ts';
import { parseToolCalls } from '../../llm/parse-tool-calls.ts';
import { splitReasoning } from '../../llm/split-reasoning.ts';
import type { ChatMessage, ToolSpec } from '../../llm/types.ts';
import type { SampleResponse, SamplingParams } from '../engine.ts';
import { HttpError } from './http-error.ts';
import { parseRequest } from './request-schemas.ts';

const toolCall = z.object({
  id: z.string(),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
const message = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullish(),
  tool_calls: z.array(toolCall).nullish(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
  reasoning_content: z.string().nullish(),
});

/** OpenAI's `/v1/chat/completions` request, with vLLM's extras (`return_token_ids`, `chat_template_kwargs`). */
export const chatCompletionRequest = z.object({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  tools: z
    .array(z.object({ type: z.literal('function'), function: z.object({ name: z.string() }).loose() }))
    .optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  seed: z.number().int().optional(),
  n: z.literal(1).optional(),
  stream: z.boolean().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  logprobs: z.boolean().optional(),
  return_token_ids: z.boolean().optional(),
  chat_template_kwargs: z.record(z.string(), z.unknown()).optional(),
});
export type ChatCompletionRequest = z.output<typeof chatCompletionRequest>;

/** The conversation rendered and encoded by the served model's template, and the sampling parameters. */
export function prepareChat(
  body: unknown,
  template: (kwargs: Record<string, unknown>) => ChatTemplate,
  contextTokens: number,
): { request: ChatCompletionRequest; chat: ChatTemplate; prompt: number[]; params: SamplingParams } {
  const request = parseRequest(chatCompletionRequest, body, 'chat/completions');
  const refuse = (what: string) =>
    new HttpError(400, `chat/completions: ${what} is not supported by this server`);
  if (request.stream) throw refuse('stream');
  if (request.stop !== undefined && request.stop.length > 0) throw refuse('stop');
  const chat = template(request.chat_template_kwargs ?? {});
  const messages: ChatMessage[] = request.messages.map((m) => ({
    role: m.role,
    content: m.content ?? '',
    ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}),
    ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
    ...(m.name ? { name: m.name } : {}),
    ...(m.reasoning_content != null ? { reasoning_content: m.reasoning_content } : {}),
  }));
  const tools = request.tools as ToolSpec[] | undefined;
  const prompt = chat.encode(chat.render(messages, { tools, addGenerationPrompt: true }));
  const room = contextTokens - prompt.length;
  if (room <= 0) {
    throw new HttpError(
      400,
      `chat/completions: the prompt is ${prompt.length} tokens; the model reads ${contextTokens}`,
    );
  }
  const params: SamplingParams = {
    max_tokens: Math.min(request.max_completion_tokens ?? request.max_tokens ?? room, room),
    stop: chat.eosTokenIds,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
  };
  return { request, chat, prompt, params };
}

/** A sample as OpenAI's chat answer: reasoning and Hermes/XML tool calls parsed from the completion text. */
export function chatCompletionResponse(
  request: ChatCompletionRequest,
  chat: ChatTemplate,
  prompt: number[],
  sampled: SampleResponse,
) {
  const sequence = sampled.sequences[0]!;
  const { reasoning, content } = splitReasoning(chat.decode(sequence.tokens));
  const parsed = parseToolCalls(content, { tools: request.tools as ToolSpec[] | undefined });
  const finish =
    sequence.stop_reason === 'length' ? 'length' : parsed.toolCalls.length ? 'tool_calls' : 'stop';
  return {
    id: `chatcmpl-${randomUUID().replaceAll('-', '')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: parsed.content,
          ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
          ...(parsed.toolCalls.length ? { tool_calls: parsed.toolCalls } : {}),
        },
        finish_reason: finish,
        logprobs: request.logprobs
          ? {
              content: sequence.logprobs.map((l, i) => ({
                token: `token_id:${sequence.tokens[i]}`,
                logprob: l,
              })),
            }
          : null,
        ...(request.return_token_ids ? { token_ids: sequence.tokens } : {}),
      },
    ],
    usage: {
      prompt_tokens: prompt.length,
      completion_tokens: sequence.tokens.length,
      total_tokens: prompt.length + sequence.tokens.length,
    },
    ...(request.return_token_ids ? { prompt_token_ids: prompt } : {}),
  };
}
