/**
 * The training engine contract, shaped like the Tinker API so that the `tinker` HTTP client and the server
 * that exposes the reference engine are thin: every wire type here (Datum, TensorData, AdamParams,
 * SamplingParams and the outputs) has Tinker's JSON shape and snake_case keys, so it crosses HTTP unchanged.
 *
 * Alignment is Tinker's: position i of `model_input` predicts `target_tokens[i]` (for a sequence s,
 * model_input = s[:-1] and target_tokens = s[1:]). Losses are summed over tokens and over data, never
 * averaged; callers scale through `weights` or `advantages`. Gradients accumulate across `forwardBackward`
 * calls until `optimStep` applies and clears them.
 */

/** A tensor as Tinker sends it: flat data, row-major, with an optional shape. */
export interface TensorData {
  data: number[];
  dtype: 'int64' | 'float32';
  shape?: number[];
}

export interface EncodedTextChunk {
  type: 'encoded_text';
  tokens: number[];
}

/** The model's input tokens, in chunks (only encoded text exists for a text-only model). */
export interface ModelInput {
  chunks: EncodedTextChunk[];
}

/**
 * Inputs of the loss functions, one entry per position of `model_input`:
 * - `target_tokens` (int64): the token each position predicts; always required.
 * - `weights` (float32): cross_entropy's per-token weight (default 1).
 * - `logprobs` (float32): the sampler's logprob of each target token (the behaviour policy); RL losses.
 * - `advantages` (float32): the advantage of each target token (0 masks it); RL losses.
 */
export interface LossFnInputs {
  target_tokens: TensorData;
  weights?: TensorData;
  logprobs?: TensorData;
  advantages?: TensorData;
}

export interface Datum {
  model_input: ModelInput;
  loss_fn_inputs: LossFnInputs;
}

/** Tinker's built-in losses (`dro` is not implemented by the reference engine). */
export type LossFnType = 'cross_entropy' | 'importance_sampling' | 'ppo' | 'cispo';

/**
 * Tinker's `loss_fn_config`. Thresholds are ratios π/π_old: ppo clips to [low, high] (default 0.8, 1.2);
 * cispo clips its stop-gradient weight to [low, high] (default 0, 4: in effect one-sided, from above).
 */
export interface LossFnConfig {
  clip_low_threshold?: number;
  clip_high_threshold?: number;
}

/** Per-datum output of forward and forwardBackward, one value per position of `model_input`. */
export interface LossFnOutput {
  /** The model's logprob of each target token (temperature 1, full vocabulary). */
  logprobs: TensorData;
  /** Each token's contribution to the loss. */
  elementwise_loss: TensorData;
}

export interface ForwardBackwardOutput {
  loss_fn_output_type: string;
  loss_fn_outputs: LossFnOutput[];
  /**
   * `loss:sum` is the summed loss; the others are diagnostics: `tokens:sum` (positions), and for the RL
   * losses `ratio:mean` (mean π/π_old over all positions) and `clip_fraction:mean` (share clipped).
   */
  metrics: Record<string, number>;
}

/** Tinker's AdamParams; omitted fields take Tinker's defaults (see ADAM_DEFAULTS). */
export interface AdamParams {
  learning_rate?: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  /** Decoupled (AdamW) weight decay: each step also does θ −= learning_rate·weight_decay·θ. */
  weight_decay?: number;
  /** Clip the global gradient norm to this value before the update; 0 turns clipping off. */
  grad_clip_norm?: number;
}

export const ADAM_DEFAULTS: Required<AdamParams> = {
  learning_rate: 1e-4,
  beta1: 0.9,
  beta2: 0.95,
  eps: 1e-12,
  weight_decay: 0,
  grad_clip_norm: 0,
};

export interface OptimStepOutput {
  /** `grad_norm` (before clipping), `learning_rate`, `step` (optimizer steps taken so far). */
  metrics: Record<string, number>;
}

/** Tinker's SamplingParams. */
export interface SamplingParams {
  max_tokens: number;
  /** 0 means greedy. Default 1. */
  temperature?: number;
  /** Nucleus sampling mass in (0, 1]. Default 1. */
  top_p?: number;
  /** Keep the k most likely tokens; -1 (default) or 0 keeps all. */
  top_k?: number;
  /** Stop after any of these token ids, or once the decoded output ends with any of these strings. */
  stop?: number[] | string[];
  /** Seeds the sampler; without it the engine's own generator is used (and advanced). */
  seed?: number;
}

/** Why sampling ended: `stop` = a stop token or string was produced; `length` = max_tokens or the context ran out. */
export type StopReason = 'stop' | 'length';

export interface SampledSequence {
  stop_reason: StopReason;
  /** The generated tokens, including the stop token or the tokens of the stop string. */
  tokens: number[];
  /**
   * The logprob of each generated token under the distribution it was drawn from (the behaviour
   * policy): softmax(logits / temperature) restricted to the top-k and top-p set and renormalized; 0 for
   * greedy decoding. At temperature 1 without top-k/top-p it equals `forward`'s logprob of that token.
   */
  logprobs: number[];
}

export interface SampleResponse {
  type: 'sample';
  sequences: SampledSequence[];
}

export interface EngineInfo {
  model_name: string;
  vocab_size: number;
  max_seq_len: number;
  param_count: number;
  /** A directory with `tokenizer.json` and `tokenizer_config.json` (chat template) for this model. */
  tokenizer_dir: string;
}

/** Text ↔ token ids for an engine's model, including its special tokens. */
export interface EngineTokenizer {
  encode(text: string): number[];
  decode(tokens: number[]): string;
  readonly vocabSize: number;
  readonly eosTokenId: number;
  /** Special token text → id (`<|im_end|>` …). */
  readonly specialTokens: Readonly<Record<string, number>>;
}

export interface SaveStateOptions {
  /** A name for the checkpoint, unique within the run (`rl-000040`). */
  name?: string;
  /** Also keep the weights where a sampler can read them: the checkpoint will score as a frozen policy. */
  forSampling?: boolean;
}

/** What scores sequences under fixed weights (the KL penalty's reference policy). */
export type ScoringPolicy = Pick<TrainingEngine, 'forward' | 'close'>;

export interface LoadStateOptions {
  /** Also restore the optimizer state (Adam moments and step); false loads weights only. */
  optimizer: boolean;
}

export interface TrainingEngine {
  getInfo(): EngineInfo;
  getTokenizer(): EngineTokenizer;
  forward(data: Datum[], lossFn: LossFnType, lossFnConfig?: LossFnConfig): Promise<ForwardBackwardOutput>;
  forwardBackward(
    data: Datum[],
    lossFn: LossFnType,
    lossFnConfig?: LossFnConfig,
  ): Promise<ForwardBackwardOutput>;
  optimStep(adam?: AdamParams): Promise<OptimStepOutput>;
  sample(promptTokens: number[], samplingParams: SamplingParams, numSamples: number): Promise<SampleResponse>;
  /**
   * Weights, optimizer state, step and generator state, into a directory (a remote engine keeps them
   * on its server, named after `options.name`, and writes where into the directory).
   */
  saveState(path: string, options?: SaveStateOptions): Promise<void>;
  /** Frees what saveState(path) keeps outside `path` (a server-side checkpoint); absent when nothing. */
  deleteState?(path: string): Promise<void>;
  loadState(path: string, options: LoadStateOptions): Promise<void>;
  /** Saves the current weights for a sampler and returns where they are (a path or URI). */
  saveWeightsForSampler(name: string): Promise<string>;
  close(): Promise<void>;
}
