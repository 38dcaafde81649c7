import { z } from 'zod';

/**
 * The parts of the OpenAI-compatible wire format that sandgym reads, with vLLM's and SGLang's token
 * fields: `prompt_token_ids` and `token_ids` when asked with `return_token_ids` (vLLM ≥ 0.10.2,
 * SGLang), per-token `logprobs`. Unknown fields are ignored; missing optional ones stay undefined.
 */

const usage = z
  .object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() })
  .nullish();

const toolCall = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({
    name: z.string(),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

export const chatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          role: z.string().nullish(),
          content: z.string().nullish(),
          /** vLLM's reasoning parsers: `reasoning_content`, `reasoning` from vLLM 0.10. */
          reasoning_content: z.string().nullish(),
          reasoning: z.string().nullish(),
          tool_calls: z.array(toolCall).nullish(),
        }),
        finish_reason: z.string().nullish(),
        logprobs: z.object({ content: z.array(z.object({ logprob: z.number() })).nullish() }).nullish(),
        token_ids: z.array(z.number()).nullish(),
      }),
    )
    .min(1),
  usage,
  prompt_token_ids: z.array(z.number()).nullish(),
});
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;

export const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        text: z.string().nullish(),
        finish_reason: z.string().nullish(),
        /** vLLM: the stop string or token id that ended it; SGLang calls it `matched_stop`. */
        stop_reason: z.union([z.string(), z.number()]).nullish(),
        matched_stop: z.union([z.string(), z.number()]).nullish(),
        logprobs: z.object({ token_logprobs: z.array(z.number().nullable()) }).nullish(),
        token_ids: z.array(z.number()).nullish(),
        prompt_token_ids: z.array(z.number()).nullish(),
      }),
    )
    .min(1),
  usage,
});
export type Completion = z.infer<typeof completionSchema>;

/** One `chat.completion.chunk` of a stream. */
export const chatChunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            reasoning: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number(),
                  id: z.string().nullish(),
                  function: z
                    .object({ name: z.string().nullish(), arguments: z.string().nullish() })
                    .nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
        logprobs: z.object({ content: z.array(z.object({ logprob: z.number() })).nullish() }).nullish(),
        token_ids: z.array(z.number()).nullish(),
      }),
    )
    .default([]),
  usage,
  prompt_token_ids: z.array(z.number()).nullish(),
});
export type ChatChunk = z.infer<typeof chatChunkSchema>;

/** Error objects servers put in a body or in the middle of a stream. */
export const errorBodySchema = z.object({
  error: z.union([
    z.string(),
    z.object({ message: z.string().nullish(), code: z.union([z.number(), z.string()]).nullish() }),
  ]),
});
