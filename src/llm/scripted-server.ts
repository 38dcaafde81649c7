import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../errors.ts';
import {
  isScriptedFault,
  type ScriptedFault,
  type ScriptedPolicy,
  type ScriptedRequest,
} from './scripted-policy.ts';
import {
  chatCompletionBody,
  chatCompletionChunks,
  completionBody,
  type ScriptedTokenizer,
} from './scripted-replies.ts';
import type { ChatMessage, ToolSpec } from './types.ts';

export interface ScriptedServerOptions {
  policy: ScriptedPolicy;
  /** The one model it serves; a request for another gets 404 as vLLM answers. Default `scripted`. */
  model?: string;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get 401. */
  apiKey?: string;
  /** Encodes text replies to completions and decodes prompts for the policy. */
  tokenizer?: ScriptedTokenizer;
  /** Context window: a completion request with prompt + max_tokens beyond it gets 400, as vLLM answers. */
  maxModelLen?: number;
  /** Default 127.0.0.1: the server is for tests and dry runs, never for the network. */
  host?: string;
}

class BadRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An OpenAI-compatible server on loopback that plays a scripted policy, so the samplers' HTTP path,
 * retries and token handling run for real without a model: `/v1/chat/completions` (plain and SSE),
 * `/v1/completions` (token ids in, token ids and logprobs out, vLLM-style) and `/v1/models`. Faults
 * (429 with Retry-After, error statuses, hangs, malformed JSON, dropped connections) come from the
 * policy like replies do.
 */
export class ScriptedServer {
  /** Every request received, in order, faults included. */
  readonly requests: ScriptedRequest[] = [];
  private readonly model: string;

  private constructor(
    private readonly server: Server,
    private readonly options: ScriptedServerOptions,
    /** Base URL ending in `/v1`, as a client takes it. */
    readonly baseUrl: string,
  ) {
    this.model = options.model ?? 'scripted';
  }

  static async start(options: ScriptedServerOptions): Promise<ScriptedServer> {
    const server = createServer();
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const scripted = new ScriptedServer(server, options, `http://${host}:${port}/v1`);
    server.on('request', (req, res) => {
      scripted.handle(req, res).catch((e) => sendError(res, 500, `scripted server: ${errorMessage(e)}`));
    });
    return scripted;
  }

  /** Stops listening and cuts open connections, hanging ones included. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (this.options.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      return sendError(res, 401, 'Incorrect API key provided.', 'invalid_api_key');
    }
    if (req.method === 'GET' && path === '/v1/models') {
      const card = {
        id: this.model,
        object: 'model',
        created: 0,
        owned_by: 'sandgym',
        max_model_len: this.options.maxModelLen,
      };
      return sendJson(res, 200, { object: 'list', data: [card] });
    }
    const endpoint =
      path === '/v1/chat/completions' ? 'chat' : path === '/v1/completions' ? 'completion' : undefined;
    if (req.method !== 'POST' || endpoint === undefined)
      return sendError(res, 404, `no route ${req.method} ${path}`);
    let request: ScriptedRequest;
    try {
      const body = await readBody(req);
      if (body.model !== undefined && body.model !== this.model) {
        throw new BadRequest(404, `The model \`${String(body.model)}\` does not exist.`);
      }
      request = endpoint === 'chat' ? this.chatRequest(body) : this.completionRequest(body);
    } catch (e) {
      if (e instanceof BadRequest) return sendError(res, e.status, e.message);
      throw e;
    }
    const callIndex = this.requests.push(request) - 1;
    const answer = await this.options.policy(request, callIndex);
    if (isScriptedFault(answer)) return playFault(answer, req, res, request);
    const id = `${endpoint === 'chat' ? 'chatcmpl' : 'cmpl'}-scripted-${callIndex}`;
    if (request.endpoint === 'completion') {
      return sendJson(res, 200, completionBody(answer, request, id, this.options.tokenizer));
    }
    if (request.stream) return sendStream(res, chatCompletionChunks(answer, request, id));
    return sendJson(res, 200, chatCompletionBody(answer, request, id));
  }

  private chatRequest(body: Record<string, unknown>): ScriptedRequest {
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      throw new BadRequest(400, 'messages: expected a non-empty array');
    }
    return {
      endpoint: 'chat',
      model: this.model,
      messages: body.messages as ChatMessage[],
      tools: (body.tools as ToolSpec[] | undefined) ?? [],
      maxTokens: (body.max_tokens ?? body.max_completion_tokens) as number | undefined,
      stream: body.stream === true,
      body,
    };
  }

  private completionRequest(body: Record<string, unknown>): ScriptedRequest {
    const prompt = body.prompt;
    if (
      !Array.isArray(prompt) ||
      prompt.length === 0 ||
      !prompt.every((t) => Number.isInteger(t) && t >= 0)
    ) {
      throw new BadRequest(400, 'prompt: the scripted server takes a non-empty list of token ids');
    }
    const maxTokens =
      body.max_tokens === undefined || body.max_tokens === null ? 16 : Number(body.max_tokens);
    if (!Number.isInteger(maxTokens) || maxTokens < 1)
      throw new BadRequest(400, 'max_tokens: expected a positive integer');
    const limit = this.options.maxModelLen;
    if (limit !== undefined && prompt.length + maxTokens > limit) {
      throw new BadRequest(
        400,
        `This model's maximum context length is ${limit} tokens. However, you requested ${prompt.length + maxTokens} tokens (${prompt.length} in the messages, ${maxTokens} in the completion).`,
      );
    }
    return {
      endpoint: 'completion',
      model: this.model,
      promptIds: prompt as number[],
      promptText: this.options.tokenizer?.decode(prompt as number[]),
      maxTokens,
      body,
    };
  }
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequest(400, 'the request body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadRequest(400, 'expected a JSON object');
  return body as Record<string, unknown>;
}

function playFault(
  fault: ScriptedFault,
  req: IncomingMessage,
  res: ServerResponse,
  request: ScriptedRequest,
): void {
  switch (fault.fault) {
    case 'rate-limit':
      res.setHeader('retry-after', String(fault.retryAfterS ?? 1));
      if (fault.retryAfterMs !== undefined) res.setHeader('retry-after-ms', String(fault.retryAfterMs));
      sendError(res, 429, 'Rate limit reached; slow down.', 'rate_limit_exceeded');
      return;
    case 'http-error':
      sendError(res, fault.status ?? 500, fault.message ?? 'scripted server error');
      return;
    case 'hang':
      return;
    case 'malformed-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "cmpl-broken", "choices": [{"index": 0, "mess');
      return;
    case 'drop-connection':
      if (request.endpoint === 'chat' && request.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: 'par' } }] })}\n\n`,
          () => req.socket.destroy(),
        );
        return;
      }
      req.socket.destroy();
      return;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, code?: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, {
    error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: code ?? status },
  });
}

function sendStream(res: ServerResponse, chunks: Record<string, unknown>[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end('data: [DONE]\n\n');
}
