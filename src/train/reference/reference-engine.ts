import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseDatum } from '../datum.ts';
import type {
  AdamParams,
  Datum,
  EngineInfo,
  EngineTokenizer,
  ForwardBackwardOutput,
  LoadStateOptions,
  LossFnConfig,
  LossFnType,
  OptimStepOutput,
  SampleResponse,
  SamplingParams,
  TrainingEngine,
} from '../engine.ts';
import { CheckpointError, EngineInputError } from '../errors.ts';
import { type AdamState, adamStep, newAdamState, resolveAdamParams } from './adam.ts';
import { readBpeTokenizerDir } from './bpe/tokenizer-dir.ts';
import { ASSETS_DIR } from './build-assets.ts';
import { ByteTokenizer } from './byte-tokenizer.ts';
import { readManifest, readTensorFile, writeCheckpoint } from './checkpoint.ts';
import { initParams } from './init-params.ts';
import {
  MODEL_PRESETS,
  type ModelConfig,
  type ModelPreset,
  parameterCount,
  validateModelConfig,
} from './model-config.ts';
import { type ParamLayout, paramLayout } from './param-layout.ts';
import { InlineReplica, type Replica } from './replica.ts';
import { Rng } from './rng.ts';
import { validateSampleRequest } from './sample-continuations.ts';
import { planShards, type ShardResult } from './shard-work.ts';
import { WorkerReplica } from './worker-replica.ts';

export interface ReferenceEngineOptions {
  /** A preset name or a full shape. Default "tiny". */
  model?: ModelPreset | ModelConfig;
  /** Seeds the initial weights and the sampler's generator. Default 0. */
  seed?: number;
  /** Where `saveWeightsForSampler(name)` writes `<weightsDir>/<name>`. Required only for that call. */
  weightsDir?: string;
  /**
   * Worker threads doing the compute. 1 (the default on a single core) computes on the calling thread;
   * 2 or more (the default: 2 when the machine has them) split each batch and each sampling request over
   * workers and leave the calling thread free. Results are bit-identical for every value.
   */
  threads?: number;
  /**
   * A tokenizer directory written by `writeBpeTokenizerDir` (a BPE over the byte tokenizer); the model's
   * vocab_size must equal its vocabulary. Default: the byte tokenizer of `assets/`.
   */
  tokenizerDir?: string;
}

/**
 * The in-process training engine: a small transformer on the CPU (see transformer.ts), Adam, sampling
 * with a KV cache, checkpoints. Deterministic: the same seed and the same calls give bit-identical
 * weights, samples and logprobs, with any number of threads. `sample` calls may overlap each other (the
 * threads serve them in arrival order); training calls (forwardBackward, optimStep, loadState) must not
 * overlap anything, as with Tinker's ordered `seq_id`s.
 */
export class ReferenceEngine implements TrainingEngine {
  readonly modelName: string;
  readonly modelConfig: ModelConfig;
  private readonly layout: ParamLayout;
  private readonly tokenizer: EngineTokenizer;
  private readonly tokenizerDir: string;
  /** The weights, the gradients accumulated since the last step, and their version (bumped on change). */
  private readonly params: Float32Array;
  private readonly grads: Float32Array;
  private version = 0;
  private readonly adam: AdamState;
  private rng: Rng;
  private readonly replicas: Replica[];
  private readonly weightsDir: string | undefined;

  private constructor(
    name: string,
    config: ModelConfig,
    seed: number,
    replicas: Replica[],
    tokenizer: { tokenizer: EngineTokenizer; dir: string },
    weightsDir?: string,
  ) {
    this.tokenizer = tokenizer.tokenizer;
    this.tokenizerDir = tokenizer.dir;
    this.modelName = name;
    this.modelConfig = config;
    this.layout = paramLayout(config);
    this.params = new Float32Array(this.layout.size);
    this.grads = new Float32Array(this.layout.size);
    this.rng = new Rng(seed);
    initParams(this.layout, this.params, this.rng);
    this.adam = newAdamState(this.layout.size);
    this.replicas = replicas;
    this.weightsDir = weightsDir;
  }

  static async create(options: ReferenceEngineOptions = {}): Promise<ReferenceEngine> {
    const model = options.model ?? 'tiny';
    const config = typeof model === 'string' ? MODEL_PRESETS[model] : model;
    if (!config) {
      throw new EngineInputError(
        `unknown reference model "${model}"; use one of ${Object.keys(MODEL_PRESETS).join(', ')}`,
      );
    }
    validateModelConfig(config);
    const tokenizer = options.tokenizerDir
      ? { tokenizer: readBpeTokenizerDir(options.tokenizerDir), dir: options.tokenizerDir }
      : { tokenizer: new ByteTokenizer(), dir: ASSETS_DIR };
    const threads = options.threads ?? Math.min(2, availableParallelism());
    if (!Number.isInteger(threads) || threads < 1) {
      throw new EngineInputError(`reference engine: threads must be a positive integer, got ${threads}`);
    }
    const replicas: Replica[] =
      threads === 1
        ? [new InlineReplica(config, tokenizer.tokenizer.merges)]
        : await Promise.all(
            Array.from({ length: threads }, () => WorkerReplica.create(config, tokenizer.tokenizer.merges)),
          );
    const name = typeof model === 'string' ? `reference-${model}` : 'reference-custom';
    return new ReferenceEngine(name, config, options.seed ?? 0, replicas, tokenizer, options.weightsDir);
  }

  getInfo(): EngineInfo {
    const c = this.modelConfig;
    return {
      model_name: this.modelName,
      vocab_size: c.vocab_size,
      max_seq_len: c.n_ctx,
      param_count: parameterCount(c),
      tokenizer_dir: this.tokenizerDir,
    };
  }

  /**
   * The tokenizer the model's ids mean. A model may have more ids than its tokenizer (real vocabularies are
   * padded), not fewer; tests of the math alone use tiny vocabularies and never ask for it.
   */
  getTokenizer(): EngineTokenizer {
    if (this.tokenizer.vocabSize > this.modelConfig.vocab_size) {
      throw new EngineInputError(
        `reference engine: the model's vocab_size is ${this.modelConfig.vocab_size} but the tokenizer in ` +
          `${this.tokenizerDir} has ${this.tokenizer.vocabSize} tokens; build the model config with ` +
          'modelConfigFromSection(section, tokenizer.vocabSize)',
      );
    }
    return this.tokenizer;
  }

  /** A copy of the flat parameter vector (layout: param-layout.ts), for diagnostics and tests. */
  parameterVector(): Float32Array {
    return this.params.slice();
  }

  /** A copy of the gradients accumulated since the last optimizer step. */
  gradientVector(): Float32Array {
    return this.grads.slice();
  }

  /** Replaces every parameter (same layout); the optimizer state is kept. */
  setParameterVector(values: Float32Array): void {
    if (values.length !== this.layout.size) {
      throw new EngineInputError(
        `setParameterVector: got ${values.length} values, the model has ${this.layout.size}`,
      );
    }
    this.params.set(values);
    this.version++;
  }

  async forward(
    data: Datum[],
    lossFn: LossFnType,
    lossFnConfig?: LossFnConfig,
  ): Promise<ForwardBackwardOutput> {
    return this.run(data, lossFn, lossFnConfig, false);
  }

  async forwardBackward(
    data: Datum[],
    lossFn: LossFnType,
    lossFnConfig?: LossFnConfig,
  ): Promise<ForwardBackwardOutput> {
    return this.run(data, lossFn, lossFnConfig, true);
  }

  private async run(data: Datum[], lossFn: LossFnType, config: LossFnConfig | undefined, backward: boolean) {
    const c = this.modelConfig;
    // Every datum is checked before any work, so a bad batch leaves no partial gradient.
    const parsed = data.map((d, i) => parseDatum(d, i, c.vocab_size, c.n_ctx));
    const shards = planShards(parsed);
    const results = await this.onReplicas(shards.length, (replica, s) =>
      replica.runShard({ data: shards[s]!, lossFn, config, backward }),
    );
    return this.collect(lossFn, results);
  }

  /** Adds the shards' gradients in shard order (the source of thread-count independence) and the outputs. */
  private collect(lossFn: LossFnType, results: ShardResult[]): ForwardBackwardOutput {
    const outputs: ForwardBackwardOutput['loss_fn_outputs'] = [];
    let lossSum = 0;
    let tokens = 0;
    let trained = 0;
    let clipped = 0;
    let ratioSum = 0;
    for (const shard of results) {
      if (shard.grads)
        for (let i = 0; i < this.grads.length; i++) this.grads[i] = this.grads[i]! + shard.grads[i]!;
      for (const { logprobs_T, loss_T, trainedTokens, clippedTokens, ratioSum: r } of shard.results) {
        for (const l of loss_T) lossSum += l;
        trained += trainedTokens;
        clipped += clippedTokens;
        ratioSum += r;
        tokens += logprobs_T.length;
        outputs.push({
          logprobs: { data: Array.from(logprobs_T), dtype: 'float32', shape: [logprobs_T.length] },
          elementwise_loss: { data: Array.from(loss_T), dtype: 'float32', shape: [loss_T.length] },
        });
      }
    }
    return {
      loss_fn_output_type: lossFn,
      loss_fn_outputs: outputs,
      metrics: {
        'loss:sum': lossSum,
        'tokens:sum': tokens,
        ...(lossFn === 'cross_entropy'
          ? {}
          : {
              'clip_fraction:mean': clipped / Math.max(trained, 1),
              'ratio:mean': ratioSum / Math.max(trained, 1),
            }),
      },
    };
  }

  /** Runs `count` pieces of work, piece i on replica i mod replicas, each replica's pieces in order. */
  private async onReplicas<T>(count: number, work: (r: Replica, i: number) => Promise<T>): Promise<T[]> {
    const out = new Array<T>(count);
    await Promise.all(
      this.replicas.map(async (replica, r) => {
        await replica.setParams(this.params, this.version);
        for (let i = r; i < count; i += this.replicas.length) out[i] = await work(replica, i);
      }),
    );
    return out;
  }

  async optimStep(adam: AdamParams = {}): Promise<OptimStepOutput> {
    const hp = resolveAdamParams(adam);
    const gradNorm = adamStep(this.params, this.grads, this.adam, hp);
    this.grads.fill(0);
    this.version++;
    return { metrics: { grad_norm: gradNorm, learning_rate: hp.learning_rate, step: this.adam.step } };
  }

  /**
   * Sample i draws with its own generator, whose seed is the i-th draw of a generator seeded with `seed`
   * (or, without one, from the engine's generator, which advances once per call); so samples are
   * independent across calls with different seeds and do not depend on how they are spread over threads.
   */
  async sample(
    promptTokens: number[],
    samplingParams: SamplingParams,
    numSamples: number,
  ): Promise<SampleResponse> {
    validateSampleRequest(this.modelConfig, promptTokens, samplingParams, numSamples);
    const seeder = new Rng(samplingParams.seed ?? this.rng.nextU32());
    const seeds = Array.from({ length: numSamples }, () => seeder.nextU32());
    const groups = Math.min(this.replicas.length, numSamples);
    const per = Math.ceil(numSamples / groups);
    const parts = await this.onReplicas(groups, (replica, g) =>
      replica.sample(promptTokens, samplingParams, seeds.slice(g * per, (g + 1) * per)),
    );
    return { type: 'sample', sequences: parts.flat() };
  }

  async saveState(path: string): Promise<void> {
    await this.write(path, true);
  }

  async saveWeightsForSampler(name: string): Promise<string> {
    if (!this.weightsDir) {
      throw new EngineInputError(
        'saveWeightsForSampler: this engine was created without weightsDir; pass one to create()',
      );
    }
    if (!/^[\w.-]+$/.test(name) || name.startsWith('.')) {
      throw new EngineInputError(
        `saveWeightsForSampler: name "${name}" must be letters, digits, "_", "-" or "."`,
      );
    }
    const path = join(this.weightsDir, name);
    await this.write(path, false);
    return path;
  }

  private async write(path: string, withOptimizer: boolean): Promise<void> {
    await writeCheckpoint(
      path,
      {
        model_name: this.modelName,
        model: this.modelConfig,
        param_count: this.layout.size,
        step: this.adam.step,
        rng_state: this.rng.state(),
      },
      this.layout,
      { params: this.params, optimizer: withOptimizer ? { m: this.adam.m, v: this.adam.v } : undefined },
    );
  }

  /**
   * Pending (not yet applied) gradients are dropped: a checkpoint is taken between optimizer steps.
   * Without `optimizer`, Adam starts afresh (zero moments, step 0): moments of other weights mean nothing.
   */
  async loadState(path: string, options: LoadStateOptions): Promise<void> {
    const manifest = await readManifest(path);
    const c = this.modelConfig;
    const same = (Object.keys(c) as (keyof ModelConfig)[]).every((k) => manifest.model[k] === c[k]);
    if (!same) {
      throw new CheckpointError(
        `checkpoint ${path}: model ${JSON.stringify(manifest.model)} does not match this engine's ${JSON.stringify(c)}`,
      );
    }
    const size = this.layout.size;
    const params = await readTensorFile(path, manifest.files.params, size);
    let moments: { m: Float32Array; v: Float32Array } | undefined;
    if (options.optimizer) {
      const { adam_m, adam_v } = manifest.files;
      if (!adam_m || !adam_v) {
        throw new CheckpointError(`checkpoint ${path}: holds weights only; load it with optimizer: false`);
      }
      moments = { m: await readTensorFile(path, adam_m, size), v: await readTensorFile(path, adam_v, size) };
    }
    this.params.set(params);
    this.version++;
    this.grads.fill(0);
    this.adam.m.set(moments?.m ?? new Float32Array(size));
    this.adam.v.set(moments?.v ?? new Float32Array(size));
    this.adam.step = moments ? manifest.step : 0;
    if (moments) this.rng = Rng.fromState(manifest.rng_state);
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.close()));
  }
}
