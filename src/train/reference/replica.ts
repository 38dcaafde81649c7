import type { SampledSequence, SamplingParams } from '../engine.ts';
import { BpeTokenizer, type Merge } from './bpe/bpe-tokenizer.ts';
import type { ModelConfig } from './model-config.ts';
import { sampleContinuations } from './sample-continuations.ts';
import { runShard, type ShardJob, type ShardResult } from './shard-work.ts';
import { Transformer } from './transformer.ts';

/** A copy of the model that runs shards and samples: in this thread, or in a worker (engine-worker.ts). */
export interface Replica {
  /** Makes the replica's weights `params`, unless it already has this version. */
  setParams(params: Float32Array, version: number): Promise<void>;
  runShard(job: ShardJob): Promise<ShardResult>;
  sample(prompt: number[], params: SamplingParams, seeds: number[]): Promise<SampledSequence[]>;
  close(): Promise<void>;
}

/** Runs on the calling thread, blocking it for the duration of each call. */
export class InlineReplica implements Replica {
  private readonly model: Transformer;
  /** The engine's tokenizer (its merges; none for the byte tokenizer): string stops are matched in its text. */
  private readonly tokenizer: BpeTokenizer;
  private version = -1;

  constructor(config: ModelConfig, merges: readonly Merge[]) {
    this.model = new Transformer(config);
    this.tokenizer = new BpeTokenizer(merges);
  }

  async setParams(params: Float32Array, version: number): Promise<void> {
    if (version === this.version) return;
    this.model.paramView().set(params);
    this.model.syncWeights();
    this.version = version;
  }

  async runShard(job: ShardJob): Promise<ShardResult> {
    return runShard(this.model, job);
  }

  async sample(prompt: number[], params: SamplingParams, seeds: number[]): Promise<SampledSequence[]> {
    return sampleContinuations(this.model, this.tokenizer, prompt, params, seeds);
  }

  async close(): Promise<void> {}
}
