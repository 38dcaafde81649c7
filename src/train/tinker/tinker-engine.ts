import { randomBytes } from 'node:crypto';
import { DEFAULT_RETRY_POLICY } from '../../llm/index.ts';
import { Semaphore } from '../../rollout/index.ts';
import { VERSION } from '../../version.ts';
import {
  ADAM_DEFAULTS,
  type AdamParams,
  type Datum,
  type EngineInfo,
  type EngineTokenizer,
  type ForwardBackwardOutput,
  type LoadStateOptions,
  type LossFnConfig,
  type LossFnType,
  type OptimStepOutput,
  type SampleResponse,
  type SamplingParams,
  type SaveStateOptions,
  type ScoringPolicy,
  type TrainingEngine,
} from '../engine.ts';
import { CheckpointError, EngineInputError } from '../errors.ts';
import {
  checkpointName,
  readCheckpointPointer,
  tinkerPathParts,
  writeCheckpointPointer,
} from './checkpoint-pointer.ts';
import { CHUNK_DEFAULTS, chunkData, mergePassOutputs } from './chunk-pass.ts';
import { chooseBaseModel, describeModel } from './describe-model.ts';
import { ignoredAdamFields, type OpenApiDocument } from './ignored-settings.ts';
import { mapForwardBackwardOutput } from './map-forward-backward-output.ts';
import { mapSampleResponse } from './map-sample-response.ts';
import { parsePassData } from './parse-pass-data.ts';
import type {
  AuthTokenResponse,
  ClientConfigResponse,
  CreateModelResponse,
  CreateModelResult,
  CreateSamplingSessionResponse,
  CreateSessionResponse,
  FutureResponse,
  GetInfoResponse,
  GetServerCapabilitiesResponse,
  OptimStepResult,
  SaveWeightsForSamplerResult,
  SaveWeightsResult,
  WireForwardBackwardOutput,
  WireSampleResponse,
} from './protocol.ts';
import { resolveTokenizer } from './resolve-tokenizer.ts';
import { type RetrieveOptions, retrieveFuture } from './retrieve-future.ts';
import { SessionHeartbeat } from './session-heartbeat.ts';
import { TinkerApiError } from './tinker-api-error.ts';
import type { TinkerEngineOptions } from './tinker-engine-options.ts';
import { TinkerHttp } from './tinker-http.ts';

/**
 * Sampling requests in flight at once by default: the Tinker SDK's number (`asyncio.Semaphore(400)` in
 * its InternalClientHolder). The SDK holds a slot only while posting; here it is held until the result,
 * so a server never has more than this many of one run's samples queued.
 */
const MAX_CONCURRENT_SAMPLES = 400;

/** What the engine tells servers it is, in create_session and client/config. */
const SDK_VERSION = `sandgym/${VERSION}`;

/**
 * The `TrainingEngine` over HTTP: a client of the Tinker API (hosted Tinker, SkyRL tx, or `sandgym
 * engine serve`). One session with heartbeats and one LoRA model on the server; every operation is a
 * POST that returns a future, retrieved with long polls. Training requests carry the model's `seq_id`
 * (1, 2, …) and are posted in call order, so the server runs them in the order they were called.
 *
 * `sample` draws from the current weights: after a weight change it first saves them for the sampler
 * (a transient save that opens a sampling session, as the SDK's `save_weights_and_get_sampling_client`),
 * then samples in that session. `saveState(dir)` keeps the weights on the server and writes a pointer
 * (tinker-checkpoint.json) into `dir`; `loadState` follows it, into a fresh model when this one has
 * already run requests (the Tinker API loads weights only as a model's first request).
 */
export class TinkerEngine implements TrainingEngine {
  private readonly http: TinkerHttp;
  private readonly requestTimeoutMs: number;
  private readonly retrieveOptions: RetrieveOptions;
  private readonly closing = new AbortController();
  private sessionId = '';
  private baseModel = '';
  private readonly loraRank: number;
  private currentModelId = '';
  private info: EngineInfo | undefined;
  private tokenizer: EngineTokenizer | undefined;
  private modelSeq = 0;
  private nextSeqId = 1;
  /** Bumped by every call that changes the weights, at call time; the sampler follows it. */
  private weightsVersion = 0;
  private sampler: { version: number; sessionId: Promise<string> } | undefined;
  private samplingSessionSeq = 0;
  private sampleSeq = 0;
  /** POSTs of sequenced requests go out one after another, in seq_id order. */
  private postTurn: Promise<unknown> = Promise.resolve();
  private heartbeat: SessionHeartbeat | undefined;
  private closed = false;
  private ignoredAdam: (keyof AdamParams)[] = [];
  private readonly warned = new Set<string>();
  private cannotDelete = false;
  /** Datums and bytes per forward_backward request, from client/config (the SDK's defaults). */
  private chunkLimits = CHUNK_DEFAULTS;
  /** Sampling requests in flight, each from its post to its result. */
  private readonly sampling: Semaphore;

  private constructor(private readonly options: TinkerEngineOptions) {
    this.http = new TinkerHttp({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      retry: options.retry ?? DEFAULT_RETRY_POLICY,
      fetch: options.fetch,
      billingPauseMs: options.billingPauseMs,
    });
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.loraRank = options.loraRank ?? 32;
    const maxSamples = options.maxConcurrentSamples ?? MAX_CONCURRENT_SAMPLES;
    if (!Number.isInteger(maxSamples) || maxSamples < 1) {
      throw new EngineInputError(
        `tinker engine: maxConcurrentSamples must be a positive integer, got ${maxSamples}`,
      );
    }
    this.sampling = new Semaphore(maxSamples);
    if (!Number.isInteger(this.loraRank) || this.loraRank < 1) {
      throw new EngineInputError(`tinker engine: loraRank must be a positive integer, got ${this.loraRank}`);
    }
    this.retrieveOptions = {
      deadlineMs: options.futureTimeoutMs ?? 3_600_000,
      pollTimeoutMs: options.pollTimeoutMs ?? 45_000,
      retry: options.retry ?? DEFAULT_RETRY_POLICY,
      signal: this.closing.signal,
      onQueueState: options.onQueueState,
      billingPauseMs: options.billingPauseMs,
    };
  }

  /** Connects: the server's capabilities, a session with heartbeats, a model, its info and tokenizer. */
  static async create(options: TinkerEngineOptions): Promise<TinkerEngine> {
    const engine = new TinkerEngine(options);
    try {
      await engine.connect();
    } catch (e) {
      await engine.close();
      throw e;
    }
    return engine;
  }

  private async connect(): Promise<void> {
    await this.handshake();
    const capabilities = await this.http.get<GetServerCapabilitiesResponse>(
      'get_server_capabilities',
      this.callOptions(),
    );
    this.baseModel = chooseBaseModel(this.options.baseModel, capabilities, this.http.baseUrl);
    const session = await this.http.post<CreateSessionResponse>(
      'create_session',
      {
        tags: this.options.tags ?? [],
        user_metadata: this.options.userMetadata ?? {},
        sdk_version: SDK_VERSION,
      },
      this.callOptions(),
    );
    for (const said of [session.warning_message, session.error_message]) {
      if (said) this.options.onWarning?.(`tinker server: ${said}`);
    }
    this.sessionId = session.session_id;
    this.heartbeat = new SessionHeartbeat(
      this.http,
      this.sessionId,
      this.options.heartbeatIntervalMs ?? 10_000,
      this.options.onWarning,
    );
    this.currentModelId = await this.createModel();
    const info = await this.http.post<GetInfoResponse>(
      'get_info',
      { model_id: this.currentModelId },
      this.callOptions(),
    );
    const resolved = await resolveTokenizer({
      baseModel: this.baseModel,
      serverTokenizerId: info?.model_data?.tokenizer_id ?? undefined,
      configured: this.options.tokenizer,
      modelDir: this.options.modelDir,
    });
    this.tokenizer = resolved.tokenizer;
    this.info = describeModel(
      this.baseModel,
      info,
      capabilities,
      { vocabSize: resolved.tokenizer.vocabSize, dir: resolved.dir },
      this.options.maxContextTokens,
    );
    const schema = await this.http.probe<OpenApiDocument>('/openapi.json', this.callOptions());
    this.ignoredAdam = ignoredAdamFields(schema);
  }

  /**
   * What the SDK does first: POST client/config for the server's flags (a server without it answers
   * 404: an older protocol, nothing to set), and, when the server enables `pjwt_auth_enabled`, trade
   * the API key for a JWT at auth/token, which then goes in X-API-Key.
   */
  private async handshake(): Promise<void> {
    let flags: ClientConfigResponse;
    try {
      flags = await this.http.post<ClientConfigResponse>(
        'client/config',
        { sdk_version: SDK_VERSION },
        this.callOptions(),
      );
    } catch (e) {
      if (e instanceof TinkerApiError && e.status === 404) return;
      throw e;
    }
    this.chunkLimits = {
      maxDatums: positiveOr(flags?.fwdbwd_max_chunk_len, CHUNK_DEFAULTS.maxDatums),
      maxBytes: positiveOr(flags?.fwdbwd_max_chunk_bytes_count, CHUNK_DEFAULTS.maxBytes),
    };
    if (flags?.pjwt_auth_enabled) {
      const token = await this.http.post<AuthTokenResponse>('auth/token', {}, this.callOptions());
      if (typeof token?.jwt !== 'string') throw malformed('auth/token', 'no jwt in the answer');
      this.http.useToken(token.jwt);
    }
  }

  /** create_model, and the model id its future resolves to. */
  private async createModel(): Promise<string> {
    const lora_config = {
      rank: this.loraRank,
      ...(this.options.seed !== undefined ? { seed: this.options.seed } : {}),
    };
    const response = await this.http.post<CreateModelResponse>(
      'create_model',
      {
        session_id: this.sessionId,
        model_seq_id: this.modelSeq++,
        base_model: this.baseModel,
        lora_config,
        ...(this.options.userMetadata ? { user_metadata: this.options.userMetadata } : {}),
      },
      this.callOptions(),
    );
    const result = await this.result<CreateModelResult>(response, `create_model of ${this.baseModel}`);
    const modelId = result?.model_id ?? response?.model_id;
    if (typeof modelId !== 'string') {
      throw malformed('create_model', `no model_id in ${JSON.stringify(result)}`);
    }
    return modelId;
  }

  /** The server's id of the model being trained (it changes when loadState needs a fresh model). */
  get modelId(): string {
    return this.currentModelId;
  }

  getInfo(): EngineInfo {
    return { ...this.info! };
  }

  getTokenizer(): EngineTokenizer {
    return this.tokenizer!;
  }

  async forward(
    data: Datum[],
    lossFn: LossFnType,
    lossFnConfig?: LossFnConfig,
  ): Promise<ForwardBackwardOutput> {
    return this.pass('forward', 'forward_input', data, lossFn, lossFnConfig);
  }

  async forwardBackward(
    data: Datum[],
    lossFn: LossFnType,
    lossFnConfig?: LossFnConfig,
  ): Promise<ForwardBackwardOutput> {
    return this.pass('forward_backward', 'forward_backward_input', data, lossFn, lossFnConfig);
  }

  private async pass(
    endpoint: 'forward' | 'forward_backward',
    inputKey: 'forward_input' | 'forward_backward_input',
    data: Datum[],
    lossFn: LossFnType,
    lossFnConfig: LossFnConfig | undefined,
  ): Promise<ForwardBackwardOutput> {
    const parsed = parsePassData(data, lossFn, this.info!.vocab_size, this.info!.max_seq_len);
    const config = definedEntries(lossFnConfig);
    // As the SDK: a batch beyond the server's per-request limits goes as chunks, all in flight at once.
    const parts = await Promise.all(
      chunkData(data, this.chunkLimits).map(async (chunk) => ({
        data: chunk.length,
        wire: await this.sequenced<WireForwardBackwardOutput>(endpoint, {
          [inputKey]: {
            data: chunk,
            loss_fn: lossFn,
            ...(Object.keys(config).length ? { loss_fn_config: config } : {}),
          },
        }),
      })),
    );
    const wire = mergePassOutputs(parts);
    return mapForwardBackwardOutput(wire, parsed, lossFn, config, endpoint);
  }

  async optimStep(adam: AdamParams = {}): Promise<OptimStepOutput> {
    this.weightsVersion++;
    const adam_params = { ...ADAM_DEFAULTS, ...definedEntries(adam) };
    this.warnIgnored(adam_params);
    const result = await this.sequenced<OptimStepResult>('optim_step', { adam_params });
    return { metrics: { ...(result?.metrics ?? {}) } };
  }

  async sample(
    promptTokens: number[],
    samplingParams: SamplingParams,
    numSamples: number,
  ): Promise<SampleResponse> {
    if (!Number.isInteger(numSamples) || numSamples < 1) {
      throw new EngineInputError(`sample: numSamples must be a positive integer, got ${numSamples}`);
    }
    if (promptTokens.length === 0) throw new EngineInputError('sample: the prompt has no tokens');
    const samplingSessionId = await this.samplingSession();
    const wire = await this.sampling.use(async () => {
      const future = await this.http.post<FutureResponse>(
        'asample',
        {
          sampling_session_id: samplingSessionId,
          seq_id: this.sampleSeq++,
          num_samples: numSamples,
          prompt: { chunks: [{ type: 'encoded_text', tokens: promptTokens }] },
          sampling_params: samplingParams,
        },
        this.callOptions(),
      );
      return this.result<WireSampleResponse>(future, `asample in ${samplingSessionId}`);
    });
    return mapSampleResponse(wire, numSamples);
  }

  /** A sampling session on the current weights, saving them first if they changed since the last one. */
  private samplingSession(): Promise<string> {
    if (this.sampler?.version === this.weightsVersion) return this.sampler.sessionId;
    const sessionId = this.sequenced<SaveWeightsForSamplerResult>('save_weights_for_sampler', {
      sampling_session_seq_id: this.samplingSessionSeq++,
    }).then((r) => {
      if (typeof r?.sampling_session_id !== 'string') {
        throw malformed('save_weights_for_sampler', 'no sampling_session_id in the result');
      }
      return r.sampling_session_id;
    });
    const sampler = { version: this.weightsVersion, sessionId };
    this.sampler = sampler;
    // A failed save must not stick: the next sample tries again.
    sessionId.catch(() => {
      if (this.sampler === sampler) this.sampler = undefined;
    });
    return sessionId;
  }

  /**
   * Saves weights, optimizer state and step on the server and writes `dir/tinker-checkpoint.json`
   * pointing to them. The server-side name is `options.name` (else the directory's name) and a random
   * tag, distinct for every save: a resumed run saves its later steps again, and SkyRL refuses a name
   * it has (409) while hosted Tinker would overwrite it, leaving an older pointer on newer weights.
   */
  async saveState(dir: string, options: SaveStateOptions = {}): Promise<void> {
    const name = `${checkpointName(options.name ?? dir)}-${randomBytes(3).toString('hex')}`;
    const saved = this.sequenced<SaveWeightsResult>('save_weights', { path: name });
    const forSampler = options.forSampling ? this.saveWeightsForSampler(name) : undefined;
    const result = await saved;
    if (typeof result?.path !== 'string') throw malformed('save_weights', 'no path in the result');
    const samplerPath = await forSampler;
    await writeCheckpointPointer(dir, {
      ...(samplerPath ? { sampler_path: samplerPath } : {}),
      format: 'sandgym-tinker-checkpoint',
      tinker_path: result.path,
      base_url: this.http.baseUrl,
      base_model: this.baseModel,
      lora_rank: this.loraRank,
      saved_at: new Date().toISOString(),
    });
  }

  /**
   * Deletes the server-side checkpoint a pointer names (DELETE training_runs/<model>/checkpoints/
   * weights/<name>, on hosted Tinker and SkyRL). A server that offers no deletion is told about once.
   */
  async deleteState(dir: string): Promise<void> {
    if (this.cannotDelete) return;
    const ref = tinkerPathParts((await readCheckpointPointer(dir)).tinker_path);
    const endpoint = `training_runs/${encodeURIComponent(ref.modelId)}/checkpoints/${ref.kind}/${encodeURIComponent(ref.name)}`;
    try {
      await this.http.delete(endpoint, this.callOptions());
    } catch (e) {
      if (!(e instanceof TinkerApiError) || (e.status !== 404 && e.status !== 405)) throw e;
      // A missing route (FastAPI's bare "Not Found", or sandgym's) rather than a missing checkpoint.
      if (e.status === 405 || e.detail === 'Not Found' || /^unknown endpoint/.test(e.detail ?? '')) {
        this.cannotDelete = true;
        this.options.onWarning?.(
          `tinker server ${this.http.baseUrl} offers no checkpoint deletion; old checkpoints stay on it`,
        );
      }
    }
  }

  /** Loads a checkpoint written by saveState (a directory with its pointer) or a tinker:// path. */
  async loadState(pathOrUri: string, options: LoadStateOptions): Promise<void> {
    const pointer = await readCheckpointPointer(pathOrUri);
    if (pointer.base_model && pointer.base_model !== this.baseModel) {
      throw new CheckpointError(
        `checkpoint ${pathOrUri}: saved from base model "${pointer.base_model}", this engine trains "${this.baseModel}"`,
      );
    }
    if (this.nextSeqId > 1) await this.replaceModel();
    this.weightsVersion++;
    await this.sequenced('load_weights', { path: pointer.tinker_path, optimizer: options.optimizer });
  }

  /** A fresh model of the same base and rank replaces the current one, which is unloaded. */
  private async replaceModel(): Promise<void> {
    await this.postTurn;
    const old = this.currentModelId;
    this.currentModelId = await this.createModel();
    this.nextSeqId = 1;
    await this.unload(old);
  }

  /** Saves the current weights for samplers as `name`; returns their tinker:// path. */
  async saveWeightsForSampler(name: string): Promise<string> {
    const version = this.weightsVersion;
    const result = await this.sequenced<SaveWeightsForSamplerResult>('save_weights_for_sampler', {
      path: checkpointName(name),
    });
    if (typeof result?.path !== 'string')
      throw malformed('save_weights_for_sampler', 'no path in the result');
    // Sampling these same weights next needs no second save: open a session on the saved path.
    const session = this.http
      .post<CreateSamplingSessionResponse>(
        'create_sampling_session',
        {
          session_id: this.sessionId,
          sampling_session_seq_id: this.samplingSessionSeq++,
          model_path: result.path,
        },
        this.callOptions(),
      )
      .then((r) => r.sampling_session_id);
    await session;
    if (this.weightsVersion === version) this.sampler = { version, sessionId: session };
    return result.path;
  }

  /**
   * The frozen policy of a checkpoint saved with `forSampling`, the Tinker cookbook's way: a sampling
   * session on its sampler weights, asked for prompt logprobs, rather than a second training model on
   * the server. Undefined for a checkpoint saved without sampler weights.
   */
  async samplingPolicy(dir: string): Promise<ScoringPolicy | undefined> {
    const pointer = await readCheckpointPointer(dir);
    if (!pointer.sampler_path) return undefined;
    const session = await this.http.post<CreateSamplingSessionResponse>(
      'create_sampling_session',
      {
        session_id: this.sessionId,
        sampling_session_seq_id: this.samplingSessionSeq++,
        model_path: pointer.sampler_path,
      },
      this.callOptions(),
    );
    const sessionId = session?.sampling_session_id;
    if (typeof sessionId !== 'string') throw malformed('create_sampling_session', 'no sampling_session_id');
    return {
      forward: async (data) => ({
        loss_fn_output_type: 'cross_entropy',
        loss_fn_outputs: await Promise.all(data.map((d) => this.scoreDatum(sessionId, d))),
        metrics: {},
      }),
      close: async () => {},
    };
  }

  /** A datum's target logprobs as prompt logprobs of its whole sequence (first input token, then targets). */
  private async scoreDatum(sessionId: string, datum: Datum) {
    const input = datum.model_input.chunks.flatMap((c) => c.tokens);
    const targets = datum.loss_fn_inputs.target_tokens.data as number[];
    const sequence = [input[0]!, ...targets];
    const wire = await this.sampling.use(async () => {
      const future = await this.http.post<FutureResponse>(
        'asample',
        {
          sampling_session_id: sessionId,
          seq_id: this.sampleSeq++,
          num_samples: 1,
          prompt: { chunks: [{ type: 'encoded_text', tokens: sequence }] },
          sampling_params: { max_tokens: 1 },
          prompt_logprobs: true,
        },
        this.callOptions(),
      );
      return this.result<WireSampleResponse>(future, `asample (prompt logprobs) in ${sessionId}`);
    });
    const logprobs = wire?.prompt_logprobs?.slice(1);
    if (!logprobs || logprobs.length !== targets.length || logprobs.some((l) => typeof l !== 'number')) {
      throw malformed(
        'asample',
        `prompt_logprobs must give a number for each of the ${targets.length} targets`,
      );
    }
    const lp = logprobs as number[];
    const weights = datum.loss_fn_inputs.weights?.data as number[] | undefined;
    const loss = lp.map((l, j) => -l * (weights?.[j] ?? 1));
    const tensor = (data: number[]) => ({ data, dtype: 'float32' as const, shape: [data.length] });
    // Cross-entropy's elementwise loss, as forward would give it.
    return { logprobs: tensor(lp), elementwise_loss: tensor(loss) };
  }

  /** Stops the heartbeats, unloads the model, and aborts whatever is still in flight. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.heartbeat?.stop();
    this.closing.abort();
    if (this.currentModelId) await this.unload(this.currentModelId);
  }

  /**
   * Posts a request of the current model with the next seq_id, after the POST of the one before (not
   * after its result: the server runs them in seq_id order), and waits for its result.
   */
  private sequenced<T>(endpoint: string, fields: Record<string, unknown>): Promise<T> {
    const seqId = this.nextSeqId++;
    const modelId = this.currentModelId;
    const post = () =>
      this.http.post<FutureResponse>(
        endpoint,
        { model_id: modelId, seq_id: seqId, ...fields },
        this.callOptions(),
      );
    const posted = this.postTurn.then(post);
    this.postTurn = posted.catch(() => undefined);
    return posted.then((future) =>
      this.result<T>(future, `${endpoint} (seq_id ${seqId}) on ${modelId}`, post),
    );
  }

  /**
   * The result of a future; when the server has dropped it (410), `resend` posts the request again,
   * once, as the SDK does.
   */
  private async result<T>(
    future: FutureResponse,
    what: string,
    resend?: () => Promise<FutureResponse>,
  ): Promise<T> {
    if (typeof future?.request_id !== 'string' && typeof future?.request_id !== 'number') {
      throw malformed(what, `no request_id in ${JSON.stringify(future)}`);
    }
    try {
      return await retrieveFuture<T>(this.http, String(future.request_id), what, this.retrieveOptions);
    } catch (e) {
      if (!resend || !(e instanceof TinkerApiError) || e.kind !== 'expired') throw e;
      return this.result<T>(await resend(), what);
    }
  }

  /** Says once which of the settings in use the server drops (SkyRL: gradient clipping). */
  private warnIgnored(adam: Required<AdamParams>): void {
    const dropped = this.ignoredAdam.filter((f) => (f === 'grad_clip_norm' ? adam[f] > 0 : true));
    const unsaid = dropped.filter((f) => !this.warned.has(f));
    if (unsaid.length === 0) return;
    for (const f of unsaid) this.warned.add(f);
    this.options.onWarning?.(
      `tinker server ${this.http.baseUrl} ignores ${unsaid.join(', ')} (its published AdamParams has no such field): ${unsaid.includes('grad_clip_norm') ? 'gradients are not clipped (actor.grad_clip)' : 'those settings take no effect'}`,
    );
  }

  private callOptions() {
    return { timeoutMs: this.requestTimeoutMs, signal: this.closing.signal };
  }

  /** Best effort: a model left behind is freed by the server once the session's heartbeats stop. */
  private async unload(modelId: string): Promise<void> {
    try {
      await this.http.attempt('POST', 'unload_model', { model_id: modelId }, { timeoutMs: 5_000 });
    } catch (e) {
      this.options.onWarning?.(`tinker engine: could not unload ${modelId}: ${(e as Error).message}`);
    }
  }
}

function positiveOr(n: unknown, fallback: number): number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : fallback;
}

function definedEntries<T extends object>(o: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function malformed(what: string, problem: string): TinkerApiError {
  return new TinkerApiError(`${what}: the server's answer does not follow the Tinker API: ${problem}`, {
    kind: 'malformed-response',
    endpoint: what.split(' ')[0]!,
  });
}
