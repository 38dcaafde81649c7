/**
 * The Tinker API's JSON wire format, as the `tinker` SDK sends it (thinking-machines-lab/tinker
 * `src/tinker/types`) and SkyRL tx serves it (`skyrl/tinker/api.py`). Every endpoint sits under
 * `/api/v1`; authentication is the `X-API-Key` header; POSTs may carry `X-Idempotency-Key`, which a
 * retry repeats. Training calls return a future (`request_id`) that `retrieve_future` resolves: HTTP 408
 * (or a 200 `{type: "try_again"}`) means "not done yet, ask again"; a 200 `{error, category}` (SkyRL:
 * HTTP 400 `{detail}`) means the request failed. `seq_id` numbers one model's requests from 1 upwards
 * and is the order the server runs them in.
 *
 * Datum, TensorData, AdamParams and SamplingParams are the engine's own types (engine.ts), already in
 * this shape.
 */
import type { AdamParams, Datum, LossFnConfig, LossFnType, ModelInput, SamplingParams } from '../engine.ts';

export const API_PREFIX = '/api/v1';
export const API_KEY_HEADER = 'x-api-key';
export const IDEMPOTENCY_HEADER = 'x-idempotency-key';

/** POST client/config: the SDK's first call; the server answers its feature flags. */
export interface ClientConfigRequest {
  sdk_version: string;
}

/**
 * The flags sandgym reads (the SDK knows more: chunk sizes, semaphores, protobuf; a server may send any
 * subset, a missing flag takes the SDK's default).
 */
export interface ClientConfigResponse {
  /** Trade the API key for a JWT at POST auth/token and send that in X-API-Key. */
  pjwt_auth_enabled?: boolean;
  /** Datums per forward_backward request (SDK default 1,024). */
  fwdbwd_max_chunk_len?: number;
  /** Estimated bytes per forward_backward request (SDK default 5,000,000). */
  fwdbwd_max_chunk_bytes_count?: number;
  /** How long a 402 (billing) pauses the client before it fails. */
  billing_exception_max_pause_duration_sec?: number;
}

/** POST auth/token (body `{}`, the API key in X-API-Key): a short-lived JWT. */
export interface AuthTokenResponse {
  jwt: string;
}

export interface CreateSessionRequest {
  tags: string[];
  user_metadata: Record<string, unknown> | null;
  sdk_version: string;
  type?: 'create_session';
}

export interface CreateSessionResponse {
  type: 'create_session';
  session_id: string;
  info_message?: string | null;
  warning_message?: string | null;
  error_message?: string | null;
}

export interface SessionHeartbeatRequest {
  session_id: string;
  type?: 'session_heartbeat';
}

export interface LoraConfig {
  rank: number;
  /** Seeds the adapter's initial weights. */
  seed?: number;
}

export interface CreateModelRequest {
  session_id: string;
  /** The client's counter of models created in this session. */
  model_seq_id?: number;
  base_model: string;
  lora_config: LoraConfig;
  user_metadata?: Record<string, unknown>;
  type?: 'create_model';
}

/** What an endpoint that starts work answers: the future to retrieve. */
export interface FutureResponse {
  request_id: string;
  model_id?: string;
  /** SkyRL also sends these two. */
  future_id?: string;
  status?: string;
}

export interface CreateModelResponse extends FutureResponse {
  model_id: string;
  base_model: string;
  lora_config: LoraConfig;
}

export interface CreateModelResult {
  type: 'create_model';
  model_id: string;
  base_model: string;
  lora_config: LoraConfig;
}

export interface GetInfoRequest {
  model_id: string;
  type?: 'get_info';
}

/**
 * Tinker's ModelData (`arch`, `model_name`, `tokenizer_id`) plus what SkyRL adds (`base_model`,
 * `lora_config`) and what `sandgym engine serve` adds so a client needs no other source: the
 * vocabulary, context and parameter count.
 */
export interface ModelData {
  arch?: string | null;
  model_name?: string | null;
  tokenizer_id?: string | null;
  base_model?: string;
  lora_config?: LoraConfig | null;
  vocab_size?: number;
  max_context_length?: number;
  param_count?: number;
}

export interface GetInfoResponse {
  type?: 'get_info';
  model_id: string;
  model_data: ModelData;
  is_lora?: boolean | null;
  lora_rank?: number | null;
  model_name?: string | null;
}

export interface UnloadModelRequest {
  model_id: string;
  type?: 'unload_model';
}

export interface ForwardBackwardInput {
  data: Datum[];
  loss_fn: LossFnType;
  loss_fn_config?: LossFnConfig | null;
}

export interface ForwardBackwardRequest {
  model_id: string;
  seq_id?: number;
  forward_backward_input: ForwardBackwardInput;
}

export interface ForwardRequest {
  model_id: string;
  seq_id?: number;
  forward_input: ForwardBackwardInput;
}

/** Per datum, name → tensor: `logprobs` always, `elementwise_loss` from SkyRL and sandgym. */
export interface WireForwardBackwardOutput {
  loss_fn_output_type: string;
  loss_fn_outputs: Record<string, { data: number[]; dtype: string; shape?: number[] | null }>[];
  metrics?: Record<string, number>;
}

export interface OptimStepRequest {
  model_id: string;
  seq_id?: number;
  adam_params: Required<AdamParams>;
  type?: 'optim_step';
}

export interface OptimStepResult {
  metrics?: Record<string, number> | null;
}

export interface SaveWeightsRequest {
  model_id: string;
  /** The checkpoint's name: letters, digits, `_` and `-`. */
  path: string;
  seq_id?: number;
  overwrite?: boolean;
  type?: 'save_weights';
}

export interface SaveWeightsResult {
  type?: 'save_weights';
  /** `tinker://<model_id>/weights/<name>` */
  path: string;
}

/**
 * Either a named checkpoint (`path`), or, with `sampling_session_seq_id`, a transient one that
 * becomes a sampling session (the SDK's `save_weights_and_get_sampling_client`).
 */
export interface SaveWeightsForSamplerRequest {
  model_id: string;
  path?: string;
  seq_id?: number;
  sampling_session_seq_id?: number;
  type?: 'save_weights_for_sampler';
}

export interface SaveWeightsForSamplerResult {
  type?: 'save_weights_for_sampler';
  /** `tinker://<model_id>/sampler_weights/<name>`; null for a transient save. */
  path: string | null;
  sampling_session_id?: string | null;
}

export interface LoadWeightsRequest {
  model_id: string;
  /** `tinker://<model_id>/weights/<name>` */
  path: string;
  optimizer: boolean;
  seq_id?: number;
  type?: 'load_weights';
}

export interface CreateSamplingSessionRequest {
  session_id: string;
  sampling_session_seq_id: number;
  base_model?: string;
  model_path?: string;
  type?: 'create_sampling_session';
}

export interface CreateSamplingSessionResponse {
  type: 'create_sampling_session';
  sampling_session_id: string;
}

export interface SampleRequest {
  num_samples: number;
  prompt: ModelInput;
  sampling_params: SamplingParams;
  base_model?: string;
  model_path?: string;
  sampling_session_id?: string;
  /** The request's number within its sampling session. */
  seq_id?: number;
  prompt_logprobs?: boolean;
  topk_prompt_logprobs?: number;
  type?: 'sample';
}

export interface WireSampledSequence {
  stop_reason: string;
  tokens: number[];
  logprobs?: number[] | null;
}

export interface WireSampleResponse {
  type?: 'sample';
  sequences: WireSampledSequence[];
  prompt_logprobs?: (number | null)[] | null;
}

export interface RetrieveFutureRequest {
  request_id: string;
  allow_metadata_only?: boolean;
}

export type QueueState = 'active' | 'paused_capacity' | 'paused_rate_limit';

/** "Not done yet": the body of a 408 from retrieve_future, or of a 200 from older servers. */
export interface TryAgainResponse {
  type: 'try_again';
  request_id: string;
  queue_state: QueueState;
}

export type RequestErrorCategory = 'unknown' | 'server' | 'user';

/** A request that ran and failed. `user`: the request was wrong, sending it again fails again. */
export interface RequestFailedResponse {
  error: string;
  category: RequestErrorCategory;
}

export interface SupportedModel {
  model_name: string;
  max_context_length?: number | null;
}

export interface GetServerCapabilitiesResponse {
  supported_models: SupportedModel[];
}

export interface HealthResponse {
  status: 'ok';
}
