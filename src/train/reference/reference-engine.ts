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
import { evaluateLoss } from '../loss-fns.ts';
import { type AdamState, adamStep, newAdamState, resolveAdamParams } from './adam.ts';
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
import { Rng } from './rng.ts';
import { sampleContinuations } from './sample-continuations.ts';
import { Transformer } from './transformer.ts';
import { backwardSequence } from './transformer-backward.ts';

export interface ReferenceEngineOptions {
  /** A preset name or a full shape. Default "tiny". */
  model?: ModelPreset | ModelConfig;
  /** Seeds the initial weights and the sampler's generator. Default 0. */
  seed?: number;
  /** Where `saveWeightsForSampler(name)` writes `<weightsDir>/<name>`. Required only for that call. */
  weightsDir?: string;
}

/**
 * The in-process training engine: a small transformer on the CPU (see transformer.ts), Adam, sampling
 * with a KV cache, checkpoints. Deterministic: the same seed and the same calls give bit-identical
 * weights, samples and logprobs. Calls run to completion one at a time on the calling thread.
 */
export class ReferenceEngine implements TrainingEngine {
  readonly modelName: string;
  private readonly model: Transformer;
  private readonly tokenizer = new ByteTokenizer();
  private readonly adam: AdamState;
  private rng: Rng;
  private readonly weightsDir: string | undefined;

  private constructor(modelName: string, config: ModelConfig, seed: number, weightsDir: string | undefined) {
    this.modelName = modelName;
    this.model = new Transformer(config);
    this.rng = new Rng(seed);
    initParams(this.model.layout, this.model.paramView(), this.rng);
    this.model.syncWeights();
    this.adam = newAdamState(this.model.layout.size);
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
    const name = typeof model === 'string' ? `reference-${model}` : 'reference-custom';
    return new ReferenceEngine(name, config, options.seed ?? 0, options.weightsDir);
  }

  getInfo(): EngineInfo {
    const c = this.model.config;
    return {
      model_name: this.modelName,
      vocab_size: c.vocab_size,
      max_seq_len: c.n_ctx,
      param_count: parameterCount(c),
      tokenizer_dir: ASSETS_DIR,
    };
  }

  getTokenizer(): EngineTokenizer {
    return this.tokenizer;
  }

  /** The shape of the model, for tests and benchmarks. */
  get modelConfig(): ModelConfig {
    return this.model.config;
  }

  /** A copy of the flat parameter vector (layout: param-layout.ts), for diagnostics and tests. */
  parameterVector(): Float32Array {
    return this.model.paramView().slice();
  }

  /** A copy of the gradients accumulated since the last optimizer step. */
  gradientVector(): Float32Array {
    return this.model.gradView().slice();
  }

  /** Replaces every parameter (same layout); the optimizer state is kept. */
  setParameterVector(values: Float32Array): void {
    if (values.length !== this.model.layout.size) {
      throw new EngineInputError(
        `setParameterVector: got ${values.length} values, the model has ${this.model.layout.size}`,
      );
    }
    this.model.paramView().set(values);
    this.model.syncWeights();
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

  private run(data: Datum[], lossFn: LossFnType, config: LossFnConfig | undefined, backward: boolean) {
    const c = this.model.config;
    // Every datum is checked before any gradient is touched, so a bad batch leaves no partial update.
    const parsed = data.map((d, i) => parseDatum(d, i, c.vocab_size, c.n_ctx));
    const outputs: ForwardBackwardOutput['loss_fn_outputs'] = [];
    let lossSum = 0;
    let tokens = 0;
    for (const datum of parsed) {
      this.model.resetScratch();
      const acts = this.model.forward(datum.inputTokens_T, datum.targetTokens_T);
      const logprobs_T = this.model.rt.f32(acts.logprobs, acts.T).slice();
      const { loss_T, dLogprob_T } = evaluateLoss(lossFn, datum, logprobs_T, config);
      if (backward) backwardSequence(this.model, acts, dLogprob_T);
      for (const l of loss_T) lossSum += l;
      tokens += acts.T;
      outputs.push({
        logprobs: { data: Array.from(logprobs_T), dtype: 'float32', shape: [acts.T] },
        elementwise_loss: { data: Array.from(loss_T), dtype: 'float32', shape: [acts.T] },
      });
    }
    this.model.resetScratch();
    return {
      loss_fn_output_type: lossFn,
      loss_fn_outputs: outputs,
      metrics: { 'loss:sum': lossSum, 'tokens:sum': tokens },
    };
  }

  async optimStep(adam: AdamParams = {}): Promise<OptimStepOutput> {
    const hp = resolveAdamParams(adam);
    const grads = this.model.gradView();
    const gradNorm = adamStep(this.model.paramView(), grads, this.adam, hp);
    grads.fill(0);
    this.model.syncWeights();
    return { metrics: { grad_norm: gradNorm, learning_rate: hp.learning_rate, step: this.adam.step } };
  }

  async sample(
    promptTokens: number[],
    samplingParams: SamplingParams,
    numSamples: number,
  ): Promise<SampleResponse> {
    const rng = samplingParams.seed === undefined ? this.rng : new Rng(samplingParams.seed);
    const sequences = sampleContinuations(
      this.model,
      this.tokenizer,
      promptTokens,
      samplingParams,
      numSamples,
      rng,
    );
    this.model.resetScratch();
    return { type: 'sample', sequences };
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
    const m = this.model;
    await writeCheckpoint(
      path,
      {
        model_name: this.modelName,
        model: m.config,
        param_count: m.layout.size,
        step: this.adam.step,
        rng_state: this.rng.state(),
      },
      m.layout,
      { params: m.paramView(), optimizer: withOptimizer ? { m: this.adam.m, v: this.adam.v } : undefined },
    );
  }

  /**
   * Pending (not yet applied) gradients are dropped: a checkpoint is taken between optimizer steps.
   * Without `optimizer`, Adam starts afresh (zero moments, step 0): moments of other weights mean nothing.
   */
  async loadState(path: string, options: LoadStateOptions): Promise<void> {
    const manifest = await readManifest(path);
    const c = this.model.config;
    const same = (Object.keys(c) as (keyof ModelConfig)[]).every((k) => manifest.model[k] === c[k]);
    if (!same) {
      throw new CheckpointError(
        `checkpoint ${path}: model ${JSON.stringify(manifest.model)} does not match this engine's ${JSON.stringify(c)}`,
      );
    }
    const size = this.model.layout.size;
    const params = await readTensorFile(path, manifest.files.params, size);
    let moments: { m: Float32Array; v: Float32Array } | undefined;
    if (options.optimizer) {
      const { adam_m, adam_v } = manifest.files;
      if (!adam_m || !adam_v) {
        throw new CheckpointError(`checkpoint ${path}: holds weights only; load it with optimizer: false`);
      }
      moments = { m: await readTensorFile(path, adam_m, size), v: await readTensorFile(path, adam_v, size) };
    }
    this.model.paramView().set(params);
    this.model.gradView().fill(0);
    this.model.syncWeights();
    this.adam.m.set(moments?.m ?? new Float32Array(size));
    this.adam.v.set(moments?.v ?? new Float32Array(size));
    this.adam.step = moments ? manifest.step : 0;
    if (moments) this.rng = Rng.fromState(manifest.rng_state);
  }

  async close(): Promise<void> {}
}
