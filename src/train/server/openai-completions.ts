import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { SampleResponse, SamplingParams } from '../engine.ts';
import { HttpError } from './http-error.ts';
import { parseRequest } from './request-schemas.ts';

/**
 * OpenAI's `/v1/completions` with token ids in and out, as vLLM takes it: `prompt` is a list of ids,
 * `stop_token_ids` end a turn, every choice carries `token_ids` and `logprobs.token_logprobs`. `model`
 * names the weights to sample: a `tinker://<model>/sampler_weights/<name>` path or a sampling session id.
 */
export const completionRequest = z.object({
  model: z.string().min(1),
  prompt: z.union([
    z.array(z.number().int().min(0)).min(1),
    z.array(z.array(z.number().int().min(0)).min(1)).length(1),
  ]),
  max_tokens: z.number().int().positive().default(16),
  temperature: z.number().min(0).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  top_k: z.number().int().optional(),
  seed: z.number().int().optional(),
  n: z.number().int().positive().max(64).default(1),
  stop_token_ids: z.array(z.number().int().min(0)).optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  stream: z.boolean().optional(),
  echo: z.boolean().optional(),
  logprobs: z.number().int().min(0).nullish(),
  return_token_ids: z.boolean().optional(),
});
export type CompletionRequest = z.output<typeof completionRequest>;

/** The request as the engine's sampler takes it; what this server does not do is refused by name. */
export function parseCompletionRequest(body: unknown): {
  request: CompletionRequest;
  prompt: number[];
  params: SamplingParams;
} {
  const request = parseRequest(completionRequest, body, 'completions');
  const refuse = (what: string) => new HttpError(400, `completions: ${what} is not supported by this server`);
  if (request.stream) throw refuse('stream');
  if (request.echo) throw refuse('echo');
  if (request.stop !== undefined && request.stop.length > 0)
    throw refuse('stop (strings; use stop_token_ids)');
  if ((request.logprobs ?? 0) > 0)
    throw refuse("logprobs > 0 (the sampled token's logprob is always returned)");
  const prompt = (Array.isArray(request.prompt[0]) ? request.prompt[0] : request.prompt) as number[];
  const params: SamplingParams = {
    max_tokens: request.max_tokens,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
    ...(request.top_k !== undefined ? { top_k: request.top_k } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...(request.stop_token_ids?.length ? { stop: request.stop_token_ids } : {}),
  };
  return { request, prompt, params };
}

/** The engine's samples as a vLLM text completion (`text` is empty: this server keeps no tokenizer). */
export function completionResponse(request: CompletionRequest, prompt: number[], sampled: SampleResponse) {
  const completionTokens = sampled.sequences.reduce((n, s) => n + s.tokens.length, 0);
  return {
    id: `cmpl-${randomUUID().replaceAll('-', '')}`,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: sampled.sequences.map((s, index) => ({
      index,
      text: '',
      token_ids: s.tokens,
      prompt_token_ids: prompt,
      logprobs: {
        token_logprobs: s.logprobs,
        tokens: s.tokens.map((t) => `token_id:${t}`),
        top_logprobs: null,
      },
      finish_reason: s.stop_reason === 'stop' ? 'stop' : 'length',
      stop_reason: s.stop_reason === 'stop' ? (s.tokens.at(-1) ?? null) : null,
    })),
    usage: {
      prompt_tokens: prompt.length,
      completion_tokens: completionTokens,
      total_tokens: prompt.length + completionTokens,
    },
  };
}
