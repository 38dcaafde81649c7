import type { EngineTokenizer, SampledSequence, SamplingParams } from '../engine.ts';
import { EngineInputError } from '../errors.ts';
import { KvCacheDecoder } from './kv-cache-decoder.ts';
import type { ModelConfig } from './model-config.ts';
import { Rng } from './rng.ts';
import { drawToken, resolveSampling } from './sampling.ts';
import type { Transformer } from './transformer.ts';

/** Checks a sampling request against the model, so that it fails before any work is dispatched. */
export function validateSampleRequest(
  c: ModelConfig,
  prompt: number[],
  params: SamplingParams,
  n: number,
): void {
  if (!Number.isInteger(n) || n < 1)
    throw new EngineInputError(`num_samples must be a positive integer, got ${n}`);
  if (!Number.isInteger(params.max_tokens) || params.max_tokens < 0) {
    throw new EngineInputError(
      `sampling_params.max_tokens must be a non-negative integer, got ${params.max_tokens}`,
    );
  }
  if (prompt.length === 0) throw new EngineInputError('sample: the prompt has no tokens');
  for (const t of prompt) {
    if (!Number.isInteger(t) || t < 0 || t >= c.vocab_size) {
      throw new EngineInputError(`sample: prompt token ${t} is outside the vocabulary [0, ${c.vocab_size})`);
    }
  }
  if (prompt.length >= c.n_ctx) {
    throw new EngineInputError(
      `sample: the prompt's ${prompt.length} tokens leave no room in the ${c.n_ctx}-token context`,
    );
  }
  resolveSampling(params, c.vocab_size);
  if (
    params.stop &&
    !(params.stop.every((s) => typeof s === 'number') || params.stop.every(isNonEmptyString))
  ) {
    throw new EngineInputError('sampling_params.stop must be all token ids or all non-empty strings');
  }
}

/**
 * Samples one continuation of the prompt per seed, together: one prefill, then one batched decoding step
 * per position for the samples still running. Sample i draws from its own generator seeded with seeds[i],
 * so its tokens do not depend on which other samples share the batch (or the thread). A sample stops on a
 * stop token or string (`stop`, which stays in its tokens), at max_tokens, or when the context is full
 * (`length`). The request must have passed validateSampleRequest.
 */
export function sampleContinuations(
  model: Transformer,
  tokenizer: EngineTokenizer,
  prompt: number[],
  params: SamplingParams,
  seeds: number[],
): SampledSequence[] {
  const c = model.config;
  const n = seeds.length;
  const rngs = seeds.map((s) => new Rng(s));
  const sampling = resolveSampling(params, c.vocab_size);
  const stop = stopCondition(params.stop, tokenizer);
  const maxNew = Math.min(params.max_tokens, c.n_ctx - prompt.length);
  const out: SampledSequence[] = seeds.map(() => ({ stop_reason: 'length', tokens: [], logprobs: [] }));
  if (maxNew === 0 || n === 0) return out;
  model.resetScratch();
  const decoder = new KvCacheDecoder(model, n, prompt.length + maxNew);
  const first = decoder.prefill(Int32Array.from(prompt));
  let live = seeds.map((_, i) => i);
  let logits = live.map(() => first);
  for (let step = 0; step < maxNew; step++) {
    const next: number[] = [];
    const fed: number[] = [];
    live.forEach((s, r) => {
      const { token, logprob } = drawToken(logits[r]!, sampling, rngs[s]!);
      const seq = out[s]!;
      seq.tokens.push(token);
      seq.logprobs.push(logprob);
      if (stop(seq.tokens)) seq.stop_reason = 'stop';
      else {
        next.push(s);
        fed.push(token);
      }
    });
    live = next;
    if (live.length === 0 || step === maxNew - 1) break;
    const rows = decoder.step(live, fed);
    logits = live.map((_, r) => rows.subarray(r * c.vocab_size, (r + 1) * c.vocab_size));
  }
  model.resetScratch();
  return out;
}

function isNonEmptyString(s: unknown): boolean {
  return typeof s === 'string' && s.length > 0;
}

/** Whether a sample's tokens end with a stop token id or decode to text ending with a stop string. */
function stopCondition(
  stop: SamplingParams['stop'],
  tokenizer: EngineTokenizer,
): (tokens: number[]) => boolean {
  if (!stop || stop.length === 0) return () => false;
  if (stop.every((s) => typeof s === 'number')) {
    const ids = new Set(stop as number[]);
    return (tokens) => ids.has(tokens[tokens.length - 1]!);
  }
  const strings = stop as string[];
  // A character is at most 4 bytes, and any token decodes to at least one character: this tail suffices.
  const tail = 4 * Math.max(...strings.map((s) => s.length));
  return (tokens) => {
    const text = tokenizer.decode(tokens.slice(-tail));
    return strings.some((s) => text.endsWith(s));
  };
}
