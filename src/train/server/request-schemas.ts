import { z } from 'zod';
import { LOSS_FNS } from '../loss-fns.ts';
import { HttpError } from './http-error.ts';

/**
 * The request bodies the server accepts, as the Tinker SDK sends them. Unknown keys (`type`,
 * `project_id`, `ttl_seconds`, …) are ignored, as pydantic does; deep checks of data (tokens against
 * the vocabulary, aligned tensors) are the engine's (parseDatum), at submission time.
 */

/** A checkpoint name: SkyRL's ID_PATTERN, which also keeps names inside the weights directory. */
export const CHECKPOINT_NAME = /^[A-Za-z0-9_-]{1,255}$/;

const id = z.string().min(1);
const seqId = z.number().int().nonnegative().optional();
const metadata = z.record(z.string(), z.unknown()).nullish();
const checkpointName = z.string().regex(CHECKPOINT_NAME, 'must be 1-255 letters, digits, "_" or "-"');

export const createSessionRequest = z.object({
  tags: z.array(z.string()).default([]),
  user_metadata: metadata,
  sdk_version: z.string(),
});

export const sessionRequest = z.object({ session_id: id });

export const createModelRequest = z.object({
  session_id: id,
  base_model: id,
  lora_config: z.object({ rank: z.number().int().positive(), seed: z.number().int().nullish() }).nullish(),
  model_seq_id: z.number().int().nonnegative().nullish(),
  user_metadata: metadata,
});

export const modelRequest = z.object({ model_id: id });

const passInput = z
  .object({
    data: z.array(z.unknown()).min(1, 'needs at least one datum'),
    loss_fn: z.enum(LOSS_FNS as [string, ...string[]]),
    loss_fn_config: z.record(z.string(), z.number()).nullish(),
  })
  .superRefine((input, ctx) => {
    const allowed = input.loss_fn === 'cross_entropy' ? [] : ['clip_low_threshold', 'clip_high_threshold'];
    const bad = Object.keys(input.loss_fn_config ?? {}).filter((k) => !allowed.includes(k));
    if (bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['loss_fn_config'],
        message: `keys ${bad.join(', ')} are not accepted for loss_fn "${input.loss_fn}"${allowed.length ? `; use ${allowed.join(', ')}` : ''}`,
      });
    }
  });

export const forwardBackwardRequest = z.object({
  model_id: id,
  seq_id: seqId,
  forward_backward_input: passInput,
});
export const forwardRequest = z.object({ model_id: id, seq_id: seqId, forward_input: passInput });

export const optimStepRequest = z.object({
  model_id: id,
  seq_id: seqId,
  adam_params: z.object({
    learning_rate: z.number().nonnegative().optional(),
    beta1: z.number().min(0).lt(1).optional(),
    beta2: z.number().min(0).lt(1).optional(),
    eps: z.number().positive().optional(),
    weight_decay: z.number().nonnegative().optional(),
    grad_clip_norm: z.number().nonnegative().optional(),
  }),
});

export const saveWeightsRequest = z.object({
  model_id: id,
  path: checkpointName,
  seq_id: seqId,
  overwrite: z.boolean().optional(),
});

export const saveWeightsForSamplerRequest = z
  .object({
    model_id: id,
    path: checkpointName.nullish(),
    seq_id: seqId,
    sampling_session_seq_id: z.number().int().nonnegative().nullish(),
  })
  .refine((r) => r.path != null || r.sampling_session_seq_id != null, {
    message: 'give a checkpoint name (path) or a sampling_session_seq_id',
  });

export const loadWeightsRequest = z.object({
  model_id: id,
  path: z.string().startsWith('tinker://', 'must be a tinker:// path'),
  optimizer: z.boolean().default(true),
  seq_id: seqId,
});

export const createSamplingSessionRequest = z.object({
  session_id: id,
  sampling_session_seq_id: z.number().int().nonnegative(),
  base_model: z.string().nullish(),
  model_path: z.string().nullish(),
});

const encodedText = z.object({
  type: z.literal('encoded_text').default('encoded_text'),
  tokens: z.array(z.number().int()),
});

export const sampleRequest = z.object({
  num_samples: z.number().int().positive().default(1),
  prompt: z.object({ chunks: z.array(encodedText).min(1) }),
  sampling_params: z.object({
    max_tokens: z.number().int().positive(),
    temperature: z.number().nonnegative().optional(),
    top_p: z.number().gt(0).max(1).optional(),
    top_k: z.number().int().optional(),
    seed: z.number().int().nullish(),
    stop: z
      .union([z.string(), z.array(z.string()), z.array(z.number().int())])
      .nullish()
      .transform((s) => (typeof s === 'string' ? [s] : (s ?? undefined))),
  }),
  base_model: z.string().nullish(),
  model_path: z.string().nullish(),
  sampling_session_id: z.string().nullish(),
  seq_id: z.number().int().nullish(),
  prompt_logprobs: z.boolean().nullish(),
  topk_prompt_logprobs: z.number().int().nonnegative().nullish(),
});

export const weightsInfoRequest = z.object({ tinker_path: z.string().startsWith('tinker://') });

export const retrieveFutureRequest = z.object({
  request_id: z.union([z.string().min(1), z.number().int()]).transform(String),
  allow_metadata_only: z.boolean().optional(),
});

/** The body as `schema` describes it, or a 400 that lists every problem by field. */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown, endpoint: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`,
  );
  throw new HttpError(400, `${endpoint}: malformed request: ${problems.join('; ')}`);
}
