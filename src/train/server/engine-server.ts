import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../../errors.ts';
import { API_KEY_HEADER, API_PREFIX, IDEMPOTENCY_HEADER } from '../tinker/index.ts';
import { HttpError } from './http-error.ts';
import { type CachedAnswer, IdempotencyCache } from './idempotency-cache.ts';
import { readJsonBody } from './read-json-body.ts';
import { TinkerService, type TinkerServiceOptions } from './tinker-service.ts';

export interface EngineServerOptions extends TinkerServiceOptions {
  /** Default 127.0.0.1: the engine is meant for this machine unless an API key guards it. */
  host?: string;
  /** Default 8000; 0 picks a free port (see `port` after start). */
  port?: number;
  /** When set, every endpoint but healthz requires it as `X-API-Key`. */
  apiKey?: string;
  /** Largest request body accepted. Default 256 MiB. */
  maxBodyBytes?: number;
  /** Told about requests that failed inside the server (HTTP 500), for the log. */
  onError?: (message: string) => void;
}

/** Endpoints whose repeats are harmless and whose answers need no caching. */
const NOT_CACHED = new Set(['retrieve_future', 'session_heartbeat']);

/**
 * `sandgym engine serve`: the reference engine behind the Tinker API (JSON over HTTP, under /api/v1),
 * so the `tinker` client trains it as it would train on Tinker or SkyRL tx. JSON only: the Python SDK
 * from 0.25 sends forward_backward as protobuf, which this server does not read.
 */
export class EngineServer {
  readonly service: TinkerService;
  private readonly server: Server;
  private readonly options: EngineServerOptions;
  private readonly apiKey: Buffer | undefined;
  private readonly idempotency = new IdempotencyCache(600_000);

  private constructor(options: EngineServerOptions) {
    this.options = options;
    this.service = new TinkerService(options);
    this.apiKey = options.apiKey ? Buffer.from(options.apiKey) : undefined;
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((e) => this.options.onError?.(`engine server: ${errorMessage(e)}`));
    });
  }

  /** Starts listening; resolves once the port is bound. */
  static async start(options: EngineServerOptions): Promise<EngineServer> {
    const server = new EngineServer(options);
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.server.listen(options.port ?? 8000, options.host ?? '127.0.0.1', () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    return server;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The base URL clients use (TINKER_BASE_URL); endpoints are under `<url>/api/v1`. */
  get url(): string {
    const host = this.options.host ?? '127.0.0.1';
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const closed = new AbortController();
    res.on('close', () => closed.abort());
    let answer: CachedAnswer;
    try {
      answer = await this.answer(req, closed.signal);
    } catch (e) {
      answer = errorAnswer(e, this.options.onError);
    }
    if (res.destroyed) return;
    if (answer.status === 204) {
      res.writeHead(204).end();
      return;
    }
    const text = JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }

  private async answer(req: IncomingMessage, signal: AbortSignal): Promise<CachedAnswer> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/openapi.json' && req.method === 'GET' && this.options.compat === 'skyrl') {
      return { status: 200, body: SKYRL_OPENAPI };
    }
    if (path === '/v1/models') {
      if (req.method !== 'GET') throw new HttpError(405, '/v1/models takes GET');
      this.authenticate(req);
      return { status: 200, body: await this.service.openaiModels() };
    }
    const openai =
      path === '/v1/completions' ? 'completions' : path === '/v1/chat/completions' ? 'chat' : undefined;
    if (openai) {
      if (req.method !== 'POST') throw new HttpError(405, `${path} takes POST`);
      this.authenticate(req);
      const { json } = await readJsonBody(req, this.options.maxBodyBytes ?? 256 * 2 ** 20);
      try {
        const body =
          openai === 'chat' ? await this.service.chatCompletions(json) : await this.service.completions(json);
        return { status: 200, body };
      } catch (e) {
        return openaiErrorAnswer(e, this.options.onError);
      }
    }
    if (!path.startsWith(`${API_PREFIX}/`))
      throw new HttpError(
        404,
        `no such path ${path}; the API is under ${API_PREFIX}/, /v1/completions and /v1/chat/completions`,
      );
    const endpoint = path.slice(API_PREFIX.length + 1);
    const checkpoint = /^training_runs\/([^/]+)\/checkpoints\/([^/]+)\/([^/]+)$/.exec(endpoint);
    if (checkpoint && req.method === 'DELETE') {
      this.authenticate(req);
      const [, modelId, kind, name] = checkpoint.map((p) => decodeURIComponent(p));
      try {
        await this.service.deleteCheckpoint(modelId!, kind!, name!);
        return { status: 204, body: null };
      } catch (e) {
        return errorAnswer(e, this.options.onError);
      }
    }
    const sampler = /^samplers\/([^/]+)$/.exec(endpoint);
    if (sampler && req.method === 'GET') {
      this.authenticate(req);
      try {
        return { status: 200, body: this.service.samplerInfo(decodeURIComponent(sampler[1]!)) };
      } catch (e) {
        return errorAnswer(e, this.options.onError);
      }
    }
    const table = req.method === 'GET' ? this.service.get : req.method === 'POST' ? this.service.post : {};
    const handler = Object.hasOwn(table, endpoint) ? table[endpoint] : undefined;
    if (!handler) {
      const other = Object.hasOwn(this.service.get, endpoint) || Object.hasOwn(this.service.post, endpoint);
      throw new HttpError(
        other ? 405 : 404,
        other ? `${endpoint} does not take ${req.method}` : `unknown endpoint ${req.method} ${path}`,
      );
    }
    if (endpoint !== 'healthz') this.authenticate(req);
    const { json, text } = await readJsonBody(req, this.options.maxBodyBytes ?? 256 * 2 ** 20);
    const run = async (): Promise<CachedAnswer> => {
      try {
        return { status: 200, body: await handler(json, text, signal) };
      } catch (e) {
        return errorAnswer(e, this.options.onError);
      }
    };
    const key = req.headers[IDEMPOTENCY_HEADER];
    if (typeof key === 'string' && key && !NOT_CACHED.has(endpoint)) {
      return this.idempotency.getOrAdd(`${endpoint} ${key}`, run);
    }
    return run();
  }

  /** Tinker clients send `X-API-Key`; OpenAI clients `Authorization: Bearer`. */
  private authenticate(req: IncomingMessage): void {
    if (!this.apiKey) return;
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const given = req.headers[API_KEY_HEADER] ?? bearer;
    const key = Buffer.from(typeof given === 'string' ? given : '');
    if (key.length !== this.apiKey.length || !timingSafeEqual(key, this.apiKey)) {
      throw new HttpError(
        401,
        given ? 'wrong API key in X-API-Key' : 'this server requires an API key in X-API-Key',
      );
    }
  }

  /** Stops listening, drops open connections, and unloads every model. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await Promise.all([closed, this.service.close()]);
  }
}

/** The part of SkyRL's /openapi.json that tells clients which optimizer fields it reads. */
const SKYRL_OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'sandgym engine serve --compat skyrl', version: '0' },
  components: {
    schemas: {
      AdamParams: {
        properties: { learning_rate: {}, beta1: {}, beta2: {}, eps: {}, weight_decay: {} },
      },
    },
  },
};

/** OpenAI's error body: `{error: {message, type, code}}`, which OpenAI clients read. */
function openaiErrorAnswer(e: unknown, onError: ((message: string) => void) | undefined): CachedAnswer {
  const answer = errorAnswer(e, onError);
  const message = (answer.body as { detail?: unknown })?.detail;
  return {
    status: answer.status,
    body: {
      error: { message: String(message ?? 'error'), type: 'invalid_request_error', code: answer.status },
    },
  };
}

function errorAnswer(e: unknown, onError: ((message: string) => void) | undefined): CachedAnswer {
  if (e instanceof HttpError) {
    return { status: e.status, body: e.message ? { detail: e.message, ...e.body } : e.body };
  }
  onError?.(`engine server: request failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return { status: 500, body: { detail: `internal error: ${errorMessage(e)}` } };
}
