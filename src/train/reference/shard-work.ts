import type { ParsedDatum } from '../datum.ts';
import type { LossFnConfig, LossFnType } from '../engine.ts';
import { evaluateLoss } from '../loss-fns.ts';
import type { Transformer } from './transformer.ts';
import { backwardSequence } from './transformer-backward.ts';

/**
 * Training data is always cut into this many contiguous shards, whatever the number of threads, and the
 * shards' gradients are added in shard order: so one thread and two threads give bit-identical weights.
 */
export const SHARD_COUNT = 2;

export interface ShardJob {
  data: ParsedDatum[];
  lossFn: LossFnType;
  config?: LossFnConfig;
  backward: boolean;
}

export interface DatumResult {
  logprobs_T: Float32Array;
  loss_T: Float64Array;
  trainedTokens: number;
  clippedTokens: number;
  ratioSum: number;
}

export interface ShardResult {
  results: DatumResult[];
  /** The shard's summed parameter gradients (only when `backward`). */
  grads?: Float32Array;
}

/** Splits data into SHARD_COUNT contiguous runs of about equal token counts (some may be empty). */
export function planShards(data: ParsedDatum[]): ParsedDatum[][] {
  const total = data.reduce((s, d) => s + d.inputTokens_T.length, 0);
  const shards: ParsedDatum[][] = Array.from({ length: SHARD_COUNT }, () => []);
  let seen = 0;
  for (const d of data) {
    const s = Math.min(SHARD_COUNT - 1, Math.floor((seen * SHARD_COUNT) / Math.max(total, 1)));
    shards[s]!.push(d);
    seen += d.inputTokens_T.length;
  }
  return shards;
}

/** Runs one shard on a replica: forward, losses and, when asked, backward with the shard's own gradients. */
export function runShard(model: Transformer, job: ShardJob): ShardResult {
  const grads = model.gradView();
  grads.fill(0);
  const results: DatumResult[] = [];
  for (const datum of job.data) {
    model.resetScratch();
    const acts = model.forward(datum.inputTokens_T, datum.targetTokens_T);
    const logprobs_T = model.rt.f32(acts.logprobs, acts.T).slice();
    const { loss_T, dLogprob_T, trainedTokens, clippedTokens, ratioSum } = evaluateLoss(
      job.lossFn,
      datum,
      logprobs_T,
      job.config,
    );
    if (job.backward) backwardSequence(model, acts, dLogprob_T);
    results.push({ logprobs_T, loss_T, trainedTokens, clippedTokens, ratioSum });
  }
  model.resetScratch();
  return job.backward ? { results, grads: model.gradView().slice() } : { results };
}
