import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../errors.ts';
import type { ChatTemplate } from '../../llm/chat-template.ts';
import { loadChatTemplate } from '../../llm/load-chat-template.ts';
import type { Datum, LossFnType } from '../engine.ts';
import { isEngineInputError } from '../errors.ts';
import { ASSETS_DIR, MODEL_PRESETS, type ModelPreset, ReferenceEngine } from '../reference/index.ts';
import { type FutureResponse, type GetInfoResponse, parsePassData } from '../tinker/index.ts';
import { checkpointDir, formatTinkerPath, parseTinkerPath } from './checkpoint-paths.ts';
import { referenceCapabilities, referenceModelInfo } from './describe-reference-model.ts';
import { FuturesTable } from './futures-table.ts';
import { HttpError } from './http-error.ts';
import { chatCompletionResponse, prepareChat } from './openai-chat-completions.ts';
import { completionResponse, parseCompletionRequest } from './openai-completions.ts';
import * as schema from './request-schemas.ts';
import { CHECKPOINT_NAME } from './request-schemas.ts';
import { ServedModel } from './served-model.ts';
import { SessionRegistry } from './session-registry.ts';

export interface TinkerServiceOptions {
  /** The reference model served. Default "tiny". */
  model?: ModelPreset;
  /** Seeds the initial weights of every model (unless create_model's lora_config.seed says otherwise). */
  seed?: number;
  /** Where checkpoints live: `<weightsDir>/<model_id>/{weights,sampler_weights}/<name>`. */
  weightsDir: string;
  /**
   * Worker threads per engine (see ReferenceEngineOptions.threads). With 2 or more (the default where
   * the machine has them) the engines compute in workers; with 1 they compute on the server's own
   * thread, which then answers nothing (long polls, heartbeats) until each operation ends.
   */
  threads?: number;
  /** How long retrieve_future waits for a result before answering 408. Default 30 s. */
  longPollMs?: number;
  /** How long a model's queue waits for a missing seq_id. Default 30 s. */
  seqGapTimeoutMs?: number;
  /** How long a finished request's result stays retrievable. Default 10 min. */
  resultTtlMs?: number;
  /** A session without heartbeats for this long expires and its models are unloaded. Default 5 min. */
  sessionTimeoutMs?: number;
  /**
   * `skyrl`: answer as SkyRL tx's server (a9564572) does where it differs from hosted Tinker, so
   * clients can be tried against it here: no tokenizer_id, context or vocabulary in get_info and the
   * capabilities, 409 for a checkpoint name it has (no overwrite), grad_clip_norm dropped, loss_fn_config
   * refused for importance_sampling and cross_entropy (422), failures as HTTP 400 `{detail}`, and an
   * /openapi.json whose AdamParams has no grad_clip_norm. Default `tinker`.
   */
  compat?: 'tinker' | 'skyrl';
}

type Handler = (body: unknown, raw: string, signal: AbortSignal) => Promise<unknown> | unknown;

/**
 * The Tinker API over the reference engine: sessions, models (one engine each), futures, sampling
 * sessions, checkpoints under the weights dir. LoRA ranks are accepted and recorded, but the reference
 * engine trains all weights (full fine-tuning); get_info and the capabilities say so.
 */
export class TinkerService {
  readonly modelName: string;
  private readonly preset: ModelPreset;
  private readonly options: TinkerServiceOptions;
  private readonly futures: FuturesTable;
  private readonly sessions: SessionRegistry;
  private readonly models = new Map<string, ServedModel>();
  private readonly samplingSessions = new Map<string, { modelId: string; key: string }>();
  /** Sampler weights of models no longer loaded (a run killed, the server restarted), by model id. */
  private readonly savedSamplers = new Map<string, ServedModel>();
  /** The reference models' chat template (their byte tokenizer's), per set of template variables. */
  private readonly templates = new Map<string, Promise<ChatTemplate>>();
  readonly post: Record<string, Handler>;
  readonly get: Record<string, Handler>;

  constructor(options: TinkerServiceOptions) {
    this.options = options;
    this.preset = options.model ?? 'tiny';
    if (!Object.hasOwn(MODEL_PRESETS, this.preset)) {
      throw new ConfigError(
        `unknown reference model "${this.preset}"; use ${Object.keys(MODEL_PRESETS).join(' or ')}`,
      );
    }
    this.modelName = `reference-${this.preset}`;
    this.futures = new FuturesTable(options.resultTtlMs ?? 600_000);
    this.sessions = new SessionRegistry(options.sessionTimeoutMs ?? 300_000, (ids) => {
      for (const id of ids) this.unload(id);
    });
    this.get = {
      healthz: () => ({ status: 'ok' }),
      get_server_capabilities: () =>
        this.skyrl
          ? { supported_models: [{ model_name: this.modelName }] }
          : referenceCapabilities(this.preset),
    };
    this.post = {
      'client/config': () => ({ pjwt_auth_enabled: false }),
      // The SDK reports its own events; like SkyRL, acknowledge and drop them.
      telemetry: () => ({ status: 'accepted' }),
      weights_info: (b) => this.weightsInfo(b),
      create_session: (b) => this.createSession(b),
      session_heartbeat: (b) => this.heartbeat(b),
      create_model: (b) => this.createModel(b),
      get_info: (b) => this.info(b),
      unload_model: (b) => this.unloadModel(b),
      forward: (b, raw) => this.pass('forward', b, raw),
      forward_backward: (b, raw) => this.pass('forward_backward', b, raw),
      optim_step: (b, raw) => this.optimStep(b, raw),
      save_weights: (b, raw) => this.saveWeights(b, raw),
      save_weights_for_sampler: (b, raw) => this.saveWeightsForSampler(b, raw),
      load_weights: (b, raw) => this.loadWeights(b, raw),
      create_sampling_session: (b) => this.createSamplingSession(b),
      asample: (b) => this.sample(b),
      retrieve_future: (b, _raw, signal) => this.retrieveFuture(b, signal),
    };
  }

  private get skyrl(): boolean {
    return this.options.compat === 'skyrl';
  }

  /**
   * DELETE training_runs/<model_id>/checkpoints/<kind>/<name>: removes a saved checkpoint (its model
   * may be gone), as Tinker and SkyRL do; 404 when there is none.
   */
  async deleteCheckpoint(modelId: string, kind: string, name: string): Promise<void> {
    if (!CHECKPOINT_NAME.test(modelId) || !CHECKPOINT_NAME.test(name)) {
      throw new HttpError(400, `no checkpoint ${modelId}/${kind}/${name}: not plain names`);
    }
    if (kind !== 'weights' && kind !== 'sampler_weights') {
      throw new HttpError(
        400,
        "Invalid checkpoint identifier. Expected format 'weights/<name>' or 'sampler_weights/<name>'",
      );
    }
    const dir = checkpointDir(this.options.weightsDir, { modelId, kind, name });
    if (!existsSync(dir)) throw new HttpError(404, `Checkpoint not found: ${modelId}/${name}`);
    await rm(dir, { recursive: true, force: true });
  }

  /** GET samplers/<id>: what the SDK's sampling client asks to pick the tokenizer. */
  samplerInfo(samplerId: string) {
    const session = this.samplingSessions.get(samplerId);
    if (!session) throw new HttpError(404, 'Sampler not found');
    return {
      sampler_id: samplerId,
      base_model: this.modelName,
      model_path: formatTinkerPath({ modelId: session.modelId, kind: 'sampler_weights', name: session.key }),
    };
  }

  /** POST weights_info: the SDK reads a checkpoint's base model and LoRA rank before loading it. */
  private weightsInfo(body: unknown) {
    const { tinker_path } = schema.parseRequest(schema.weightsInfoRequest, body, 'weights_info');
    const ref = parseTinkerPath(tinker_path, 'weights');
    if (!existsSync(checkpointDir(this.options.weightsDir, ref))) {
      throw new HttpError(404, `weights_info: no checkpoint at ${tinker_path}`);
    }
    const rank = this.models.get(ref.modelId)?.loraConfig?.rank ?? null;
    return { base_model: this.modelName, is_lora: rank !== null, lora_rank: rank };
  }

  private createSession(body: unknown) {
    schema.parseRequest(schema.createSessionRequest, body, 'create_session');
    return { type: 'create_session', session_id: this.sessions.create() };
  }

  private heartbeat(body: unknown) {
    this.sessions.touch(schema.parseRequest(schema.sessionRequest, body, 'session_heartbeat').session_id);
    return { type: 'session_heartbeat' };
  }

  private createModel(body: unknown) {
    const req = schema.parseRequest(schema.createModelRequest, body, 'create_model');
    if (req.base_model !== this.modelName) {
      throw new HttpError(
        400,
        `create_model: base model "${req.base_model}" is not served here; this server serves "${this.modelName}"`,
      );
    }
    this.sessions.touch(req.session_id);
    const modelId = `model_${randomUUID().slice(0, 8)}`;
    const loraConfig = req.lora_config
      ? {
          rank: req.lora_config.rank,
          ...(req.lora_config.seed != null ? { seed: req.lora_config.seed } : {}),
        }
      : null;
    const dir = join(this.options.weightsDir, modelId);
    const engine = this.newEngine(loraConfig?.seed ?? this.options.seed ?? 0, join(dir, 'sampler_weights'));
    const model = new ServedModel({
      modelId,
      sessionId: req.session_id,
      baseModel: this.modelName,
      loraConfig,
      dir,
      engine,
      createSamplerEngine: () => this.newEngine(0, undefined),
      gapTimeoutMs: this.options.seqGapTimeoutMs ?? 30_000,
    });
    this.models.set(modelId, model);
    this.sessions.addModel(req.session_id, modelId);
    const result = { model_id: modelId, base_model: this.modelName, lora_config: loraConfig };
    const requestId = this.futures.add(
      `create_model ${modelId}`,
      engine.then(() => ({ type: 'create_model', ...result })),
    );
    engine.catch(() => this.unload(modelId));
    return { ...result, status: 'created', request_id: requestId };
  }

  private newEngine(seed: number, weightsDir: string | undefined): Promise<ReferenceEngine> {
    return ReferenceEngine.create({ model: this.preset, seed, weightsDir, threads: this.options.threads });
  }

  private info(body: unknown): GetInfoResponse {
    const model = this.model(schema.parseRequest(schema.modelRequest, body, 'get_info').model_id);
    if (this.skyrl) {
      const model_data = {
        base_model: this.modelName,
        lora_config: model.loraConfig ? { rank: model.loraConfig.rank, seed: null } : null,
        model_name: this.modelName,
      };
      return { model_id: model.modelId, status: 'ready', model_data } as GetInfoResponse;
    }
    return referenceModelInfo(this.preset, model.modelId, model.loraConfig);
  }

  private unloadModel(body: unknown) {
    const model = this.model(schema.parseRequest(schema.modelRequest, body, 'unload_model').model_id);
    const done = this.unload(model.modelId);
    const requestId = this.futures.add(
      `unload_model ${model.modelId}`,
      done.then(() => ({ type: 'unload_model', model_id: model.modelId })),
    );
    return { request_id: requestId, model_id: model.modelId };
  }

  /** Refuses new requests for the model at once, frees its engines once its queue has drained. */
  private unload(modelId: string): Promise<void> {
    const model = this.models.get(modelId);
    if (!model || model.unloading) return Promise.resolve();
    model.unloading = true;
    this.sessions.removeModel(model.sessionId, modelId);
    return model.close().finally(() => this.models.delete(modelId));
  }

  private pass(endpoint: 'forward' | 'forward_backward', body: unknown, raw: string): FutureResponse {
    return this.sequenced(endpoint, body, raw, (model) => {
      const req =
        endpoint === 'forward'
          ? schema.parseRequest(schema.forwardRequest, body, endpoint)
          : schema.parseRequest(schema.forwardBackwardRequest, body, endpoint);
      const input = 'forward_input' in req ? req.forward_input : req.forward_backward_input;
      const data = input.data as Datum[];
      const lossFn = input.loss_fn as LossFnType;
      if (
        this.skyrl &&
        input.loss_fn_config &&
        (lossFn === 'importance_sampling' || lossFn === 'cross_entropy')
      ) {
        throw new HttpError(422, '', {
          detail: [
            {
              type: 'value_error',
              loc: [`${endpoint === 'forward' ? 'forward' : 'forward_backward'}_input`],
              msg: `Value error, loss_fn='${lossFn}' does not accept loss_fn_config keys. Received: ${JSON.stringify(Object.keys(input.loss_fn_config).sort())}.`,
            },
          ],
        });
      }
      this.checkPassData(endpoint, data, lossFn);
      const config = input.loss_fn_config ?? undefined;
      return {
        seqId: req.seq_id,
        job: () =>
          endpoint === 'forward'
            ? model.forward(data, lossFn, config)
            : model.forwardBackward(data, lossFn, config),
      };
    });
  }

  /** The engine's own batch checks at submission, so a bad batch is a 400 rather than a failed future. */
  private checkPassData(endpoint: string, data: Datum[], lossFn: LossFnType): void {
    const c = MODEL_PRESETS[this.preset];
    try {
      parsePassData(data, lossFn, c.vocab_size, c.n_ctx);
    } catch (e) {
      if (isEngineInputError(e)) throw new HttpError(400, `${endpoint}: ${e.message}`);
      throw e;
    }
  }

  private optimStep(body: unknown, raw: string): FutureResponse {
    return this.sequenced('optim_step', body, raw, (model) => {
      const req = schema.parseRequest(schema.optimStepRequest, body, 'optim_step');
      // SkyRL's AdamParams has no such field: pydantic drops it.
      if (this.skyrl) delete req.adam_params.grad_clip_norm;
      return { seqId: req.seq_id, job: () => model.optimStep(req.adam_params) };
    });
  }

  private saveWeights(body: unknown, raw: string): FutureResponse {
    return this.sequenced('save_weights', body, raw, (model) => {
      const req = schema.parseRequest(schema.saveWeightsRequest, body, 'save_weights');
      const ref = { modelId: model.modelId, kind: 'weights' as const, name: req.path };
      const exists = existsSync(checkpointDir(this.options.weightsDir, ref));
      if (this.skyrl && exists) {
        throw new HttpError(409, `Checkpoint '${req.path}' already exists for model '${model.modelId}'`);
      }
      if (!req.overwrite && exists) {
        throw new HttpError(
          409,
          `save_weights: checkpoint "${req.path}" exists for ${model.modelId}; pass overwrite: true or choose another name`,
        );
      }
      return {
        seqId: req.seq_id,
        job: async () => {
          await model.saveState(req.path);
          return { type: 'save_weights', path: formatTinkerPath(ref) };
        },
      };
    });
  }

  private saveWeightsForSampler(body: unknown, raw: string): FutureResponse {
    return this.sequenced('save_weights_for_sampler', body, raw, (model) => {
      const req = schema.parseRequest(schema.saveWeightsForSamplerRequest, body, 'save_weights_for_sampler');
      const name = req.path;
      if (name) {
        const path = formatTinkerPath({ modelId: model.modelId, kind: 'sampler_weights', name });
        return {
          seqId: req.seq_id,
          job: async () => {
            await model.saveForSampler(name);
            return { type: 'save_weights_for_sampler', path };
          },
        };
      }
      const sessionId = `sampling_${randomUUID().slice(0, 8)}`;
      return {
        seqId: req.seq_id,
        job: async () => {
          await model.snapshotForSampler(sessionId);
          this.samplingSessions.set(sessionId, { modelId: model.modelId, key: sessionId });
          return { type: 'save_weights_for_sampler', path: null, sampling_session_id: sessionId };
        },
      };
    });
  }

  private loadWeights(body: unknown, raw: string): FutureResponse {
    return this.sequenced('load_weights', body, raw, (model) => {
      const req = schema.parseRequest(schema.loadWeightsRequest, body, 'load_weights');
      if (model.sequencedRequests > 0) {
        throw new HttpError(
          400,
          `load_weights: ${model.modelId} has already run requests; as on Tinker, weights load only as a model's first request: create a new model and load into it`,
        );
      }
      const dir = checkpointDir(this.options.weightsDir, parseTinkerPath(req.path, 'weights'));
      if (!existsSync(dir)) throw new HttpError(404, `load_weights: no checkpoint at ${req.path}`);
      return {
        seqId: req.seq_id,
        job: async () => {
          await model.loadState(dir, req.optimizer);
          return { type: 'load_weights', path: req.path, model_id: model.modelId };
        },
      };
    });
  }

  /**
   * A training request of one model: checked (400/404/409 at once), then queued in seq_id order and
   * answered with its future. A repeated seq_id with the same body is a retry and gets the first
   * request's future; with another body it is refused. A request refused here gives its seq_id's turn
   * away, so later ones do not wait for it.
   */
  private sequenced(
    endpoint: string,
    body: unknown,
    raw: string,
    prepare: (model: ServedModel) => { seqId: number | undefined; job: () => Promise<unknown> },
  ): FutureResponse {
    const model = this.model(schema.parseRequest(schema.modelRequest, body, endpoint).model_id);
    const claimed = (body as { seq_id?: unknown }).seq_id;
    const hash = createHash('sha256').update(raw).digest('hex');
    const seen = typeof claimed === 'number' ? model.seqRequests.get(claimed) : undefined;
    if (seen?.hash === hash) return { request_id: seen.requestId, model_id: model.modelId };
    let prepared: ReturnType<typeof prepare>;
    let work: Promise<unknown>;
    try {
      prepared = prepare(model);
      work = model.queue.run(prepared.seqId, prepared.job);
    } catch (e) {
      if (typeof claimed === 'number' && !seen) model.queue.skip(claimed);
      throw e;
    }
    model.sequencedRequests++;
    const requestId = this.futures.add(`${endpoint} on ${model.modelId}`, work);
    if (prepared.seqId !== undefined) model.rememberSeq(prepared.seqId, hash, requestId);
    return { request_id: requestId, model_id: model.modelId, future_id: requestId, status: 'pending' };
  }

  private createSamplingSession(body: unknown) {
    const req = schema.parseRequest(schema.createSamplingSessionRequest, body, 'create_sampling_session');
    this.sessions.touch(req.session_id);
    if (!req.model_path) throw baseModelSampling('create_sampling_session');
    const ref = parseTinkerPath(req.model_path, 'sampler_weights');
    this.samplerModel(ref.modelId);
    const id = `sampling_${randomUUID().slice(0, 8)}`;
    this.samplingSessions.set(id, { modelId: ref.modelId, key: ref.name });
    return { type: 'create_sampling_session', sampling_session_id: id };
  }

  private sample(body: unknown): FutureResponse {
    const req = schema.parseRequest(schema.sampleRequest, body, 'asample');
    if (req.topk_prompt_logprobs) {
      throw new HttpError(
        400,
        'asample: top-k prompt logprobs are not computed by this server; use prompt_logprobs',
      );
    }
    const source = this.samplerSource(req);
    const model = this.samplerModel(source.modelId);
    const prompt = req.prompt.chunks.flatMap((c) => c.tokens);
    const { stop, seed, ...rest } = req.sampling_params;
    const params = { ...rest, ...(stop ? { stop } : {}), ...(seed != null ? { seed } : {}) };
    const work = model.queue.run(undefined, async () => {
      const sampled = await model.sample(source.key, prompt, params, req.num_samples);
      if (!req.prompt_logprobs) return sampled;
      return { ...sampled, prompt_logprobs: await model.promptLogprobs(source.key, prompt) };
    });
    return { request_id: this.futures.add(`asample on ${model.modelId}`, work), model_id: model.modelId };
  }

  /**
   * OpenAI's `/v1/completions` with token ids (vLLM's shape), so `llm.backend=tokens` and any OpenAI
   * client sample the served weights; `model` is a sampler path or a sampling session id.
   */
  async completions(body: unknown): Promise<unknown> {
    const { request, prompt, params } = parseCompletionRequest(body);
    const source = this.samplerSource(
      request.model.startsWith('tinker://')
        ? { model_path: request.model }
        : { sampling_session_id: request.model },
    );
    const model = this.samplerModel(source.modelId);
    const sampled = await model.queue.run(undefined, () =>
      model.sample(source.key, prompt, params, request.n),
    );
    return completionResponse(request, prompt, sampled);
  }

  /**
   * OpenAI's `GET /v1/models`: what `model` may name in the OpenAI endpoints, i.e. every saved sampler
   * path of the loaded models and every sampling session.
   */
  async openaiModels(): Promise<unknown> {
    const ids = [...this.samplingSessions.keys()];
    for (const modelId of this.models.keys()) {
      const names = await readdir(join(this.options.weightsDir, modelId, 'sampler_weights')).catch(() => []);
      for (const name of names.sort()) ids.push(formatTinkerPath({ modelId, kind: 'sampler_weights', name }));
    }
    return {
      object: 'list',
      data: ids.map((id) => ({ id, object: 'model', owned_by: 'sandgym', root: this.modelName })),
    };
  }

  /**
   * OpenAI's `/v1/chat/completions`: the conversation rendered with the reference models' chat template,
   * sampled, and its reasoning and tool calls parsed from the text, so a chat client (`llm.backend=openai`)
   * drives the served weights. `model` is a sampler path or a sampling session id.
   */
  async chatCompletions(body: unknown): Promise<unknown> {
    const model = (body as { model?: unknown } | null)?.model;
    const kwargs =
      (body as { chat_template_kwargs?: Record<string, unknown> } | null)?.chat_template_kwargs ?? {};
    const key = JSON.stringify(kwargs);
    if (!this.templates.has(key)) this.templates.set(key, loadChatTemplate(ASSETS_DIR, kwargs));
    const template = await this.templates.get(key)!;
    const { request, chat, prompt, params } = prepareChat(
      body,
      () => template,
      MODEL_PRESETS[this.preset].n_ctx,
    );
    const source = this.samplerSource(
      typeof model === 'string' && model.startsWith('tinker://')
        ? { model_path: model }
        : { sampling_session_id: String(model) },
    );
    const served = this.samplerModel(source.modelId);
    const sampled = await served.queue.run(undefined, () => served.sample(source.key, prompt, params, 1));
    return chatCompletionResponse(request, chat, prompt, sampled);
  }

  private samplerSource(req: { sampling_session_id?: string | null; model_path?: string | null }) {
    if (req.sampling_session_id) {
      const session = this.samplingSessions.get(req.sampling_session_id);
      if (!session)
        throw new HttpError(
          404,
          `asample: sampling session ${req.sampling_session_id} is unknown; save weights for the sampler to open one`,
        );
      return session;
    }
    if (!req.model_path) throw baseModelSampling('asample');
    const ref = parseTinkerPath(req.model_path, 'sampler_weights');
    return { modelId: ref.modelId, key: ref.name };
  }

  private async retrieveFuture(body: unknown, signal: AbortSignal): Promise<unknown> {
    const id = schema.parseRequest(schema.retrieveFutureRequest, body, 'retrieve_future').request_id;
    const waitMs = this.options.longPollMs ?? 30_000;
    const outcome = await this.futures.wait(id, waitMs, signal);
    if (outcome.state === 'pending') {
      throw new HttpError(408, `request ${id} is not done after ${waitMs} ms; retrieve it again`, {
        type: 'try_again',
        request_id: id,
        queue_state: 'active',
      });
    }
    if (outcome.state === 'done') return outcome.result;
    // SkyRL answers a failed request with 400 and the error as detail.
    if (this.skyrl) throw new HttpError(400, (outcome.failure as { error: string }).error);
    return outcome.failure;
  }

  private model(modelId: string): ServedModel {
    const model = this.models.get(modelId);
    if (!model || model.unloading) {
      throw new HttpError(
        404,
        `model ${modelId} is not loaded on this server (unknown, unloaded, or its session expired without heartbeats); create a model`,
      );
    }
    this.sessions.touch(model.sessionId);
    return model;
  }

  /**
   * The model whose sampler weights a sampling request names. Saved sampler weights outlive their
   * model, as on hosted Tinker: a resumed run's KL reference names weights its killed predecessor
   * saved, on a model whose session has expired or on a server since restarted. Those are served from
   * disk by a sampling-only model.
   */
  private samplerModel(modelId: string): ServedModel {
    const loaded = this.models.get(modelId);
    if (loaded && !loaded.unloading) return this.model(modelId);
    const dir = join(this.options.weightsDir, modelId);
    let saved = this.savedSamplers.get(modelId);
    if (!saved && existsSync(join(dir, 'sampler_weights'))) {
      saved = new ServedModel({
        modelId,
        sessionId: '',
        baseModel: this.modelName,
        loraConfig: null,
        dir,
        engine: this.newEngine(0, undefined),
        createSamplerEngine: () => this.newEngine(0, undefined),
        gapTimeoutMs: this.options.seqGapTimeoutMs ?? 30_000,
      });
      this.savedSamplers.set(modelId, saved);
    }
    return saved ?? this.model(modelId);
  }

  /** Unloads every model and stops the session sweeper. */
  async close(): Promise<void> {
    this.sessions.close();
    await Promise.all([
      ...[...this.models.keys()].map((id) => this.unload(id)),
      ...[...this.savedSamplers.values()].map((m) => m.close()),
    ]);
  }
}

function baseModelSampling(endpoint: string): HttpError {
  return new HttpError(
    400,
    `${endpoint}: this server samples saved weights only; give model_path (a tinker:// sampler path) or a sampling_session_id`,
  );
}
