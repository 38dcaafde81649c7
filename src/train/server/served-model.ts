import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type {
  AdamParams,
  Datum,
  ForwardBackwardOutput,
  LossFnConfig,
  LossFnType,
  OptimStepOutput,
  SampleResponse,
  SamplingParams,
} from '../engine.ts';
import { CheckpointError } from '../errors.ts';
import type { ReferenceEngine } from '../reference/index.ts';
import type { LoraConfig } from '../tinker/index.ts';
import { SequencedQueue } from './sequenced-queue.ts';

/** Transient sampler weights kept per model; an older sampling session has to save again. */
const TRANSIENT_SAMPLERS_KEPT = 4;
/** A retry comes soon after its request; this many recent seq_ids are enough to recognize it. */
const SEQ_IDS_REMEMBERED = 1024;

/** Weights a sampler reads: the model's at `version`, kept as a copy or on disk. */
interface SamplerWeights {
  version: number;
  params?: Float32Array;
  dir?: string;
}

export interface ServedModelOptions {
  modelId: string;
  sessionId: string;
  baseModel: string;
  /** As the client sent it: recorded and reported; the reference engine trains every weight. */
  loraConfig: LoraConfig | null;
  /** `<weightsDir>/<model_id>`: its `weights/` and `sampler_weights/` checkpoints. */
  dir: string;
  /** The model's engine, being created. */
  engine: Promise<ReferenceEngine>;
  /** Makes an engine of the same shape for sampling weights the model has moved past. */
  createSamplerEngine: () => Promise<ReferenceEngine>;
  gapTimeoutMs: number;
}

/**
 * One model of the server: its reference engine and the queue its requests run through, one at a
 * time, training requests in seq_id order. Sampling reads the weights a sampler save recorded: the
 * model's own engine while its weights are still those, otherwise a second engine loaded with them.
 */
export class ServedModel {
  readonly modelId: string;
  readonly sessionId: string;
  readonly baseModel: string;
  readonly loraConfig: LoraConfig | null;
  readonly dir: string;
  readonly queue: SequencedQueue;
  readonly engine: Promise<ReferenceEngine>;
  /** Sequenced requests accepted so far: load_weights is only allowed before the first. */
  sequencedRequests = 0;
  /** Recent seq_ids → the request that took them (its body's hash), to answer retries. */
  readonly seqRequests = new Map<number, { hash: string; requestId: string }>();
  unloading = false;
  private weightsVersion = 0;
  private readonly samplers = new Map<string, SamplerWeights>();
  private readonly transientKeys: string[] = [];
  private samplerEngine: Promise<ReferenceEngine> | undefined;
  private samplerEngineHolds: string | undefined;
  private readonly createSamplerEngine: () => Promise<ReferenceEngine>;

  constructor(options: ServedModelOptions) {
    this.modelId = options.modelId;
    this.sessionId = options.sessionId;
    this.baseModel = options.baseModel;
    this.loraConfig = options.loraConfig;
    this.dir = options.dir;
    this.engine = options.engine;
    this.createSamplerEngine = options.createSamplerEngine;
    this.queue = new SequencedQueue(`model ${options.modelId}`, options.gapTimeoutMs);
  }

  rememberSeq(seqId: number, hash: string, requestId: string): void {
    this.seqRequests.set(seqId, { hash, requestId });
    if (this.seqRequests.size > SEQ_IDS_REMEMBERED) {
      this.seqRequests.delete(this.seqRequests.keys().next().value!);
    }
  }

  async forward(data: Datum[], lossFn: LossFnType, config?: LossFnConfig): Promise<ForwardBackwardOutput> {
    return (await this.engine).forward(data, lossFn, config);
  }

  async forwardBackward(
    data: Datum[],
    lossFn: LossFnType,
    config?: LossFnConfig,
  ): Promise<ForwardBackwardOutput> {
    return (await this.engine).forwardBackward(data, lossFn, config);
  }

  async optimStep(adam: AdamParams): Promise<OptimStepOutput> {
    const out = await (await this.engine).optimStep(adam);
    this.weightsVersion++;
    return out;
  }

  async saveState(name: string): Promise<void> {
    await (await this.engine).saveState(join(this.dir, 'weights', name));
  }

  async loadState(dir: string, optimizer: boolean): Promise<void> {
    await (await this.engine).loadState(dir, { optimizer });
    this.weightsVersion++;
  }

  /** A named sampler checkpoint, on disk. */
  async saveForSampler(name: string): Promise<void> {
    const dir = await (await this.engine).saveWeightsForSampler(name);
    this.samplers.set(name, { version: this.weightsVersion, dir });
  }

  /** Transient sampler weights for sampling session `key`: a copy in memory. */
  async snapshotForSampler(key: string): Promise<void> {
    const params = (await this.engine).parameterVector();
    this.samplers.set(key, { version: this.weightsVersion, params });
    this.transientKeys.push(key);
    while (this.transientKeys.length > TRANSIENT_SAMPLERS_KEPT)
      this.samplers.delete(this.transientKeys.shift()!);
  }

  /** Samples from the sampler weights `key` (a checkpoint name or a transient session's key). */
  async sample(key: string, prompt: number[], params: SamplingParams, n: number): Promise<SampleResponse> {
    return (await this.samplerFor(key)).sample(prompt, params, n);
  }

  /**
   * The logprob of each prompt token after the ones before it under the sampler weights `key`; null
   * for the first, which has no context (the Tinker API's `prompt_logprobs`).
   */
  async promptLogprobs(key: string, prompt: number[]): Promise<(number | null)[]> {
    if (prompt.length < 2) return prompt.map(() => null);
    const engine = await this.samplerFor(key);
    const datum: Datum = {
      model_input: { chunks: [{ type: 'encoded_text', tokens: prompt.slice(0, -1) }] },
      loss_fn_inputs: { target_tokens: { data: prompt.slice(1), dtype: 'int64' } },
    };
    const out = await engine.forward([datum], 'cross_entropy');
    return [null, ...out.loss_fn_outputs[0]!.logprobs.data];
  }

  /** The engine that holds sampler weights `key`: the model's own while they are its current ones. */
  private async samplerFor(key: string): Promise<ReferenceEngine> {
    const weights = this.samplers.get(key) ?? this.onDisk(key);
    if (weights.version === this.weightsVersion) return this.engine;
    this.samplerEngine ??= this.createSamplerEngine();
    const sampler = await this.samplerEngine;
    if (this.samplerEngineHolds !== key) {
      this.samplerEngineHolds = undefined;
      if (weights.params) sampler.setParameterVector(weights.params);
      else await sampler.loadState(weights.dir!, { optimizer: false });
      this.samplerEngineHolds = key;
    }
    return sampler;
  }

  private onDisk(key: string): SamplerWeights {
    const dir = join(this.dir, 'sampler_weights', key);
    if (!existsSync(dir)) {
      throw new CheckpointError(
        `model ${this.modelId}: no sampler weights "${key}" (transient ones are kept for the ${TRANSIENT_SAMPLERS_KEPT} latest sampling sessions); save weights for the sampler again`,
      );
    }
    return { version: -1, dir };
  }

  /** Waits for the queued work, then frees the engines. */
  async close(): Promise<void> {
    await this.queue.drained();
    const engines = [this.engine, this.samplerEngine].filter((e) => e !== undefined);
    await Promise.all(
      engines.map((e) =>
        e.then(
          (engine) => engine.close(),
          () => undefined,
        ),
      ),
    );
  }
}
