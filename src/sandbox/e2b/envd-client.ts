import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { encodeJsonEnvelope } from './connect-envelope.ts';
import { ConnectStream } from './connect-stream.ts';
import { type HttpTransport, readBody } from './http-transport.ts';
import type { Http1Response } from './http1-client.ts';
import { ENVD_PORT } from './process-messages.ts';
import { parseRpcErrorJson, type RpcCode, RpcError, rpcCodeOfHttpStatus } from './rpc-error.ts';

export interface EnvdClientConfig {
  sandboxId: string;
  /** Where envd answers: the shared sandbox URL, or the sandbox's own `https://49983-<id>.<domain>`. */
  baseUrl: string;
  accessToken?: string | undefined;
  transport: HttpTransport;
  requestTimeoutMs: number;
  streamIdleTimeoutMs: number;
}

export interface StreamOptions {
  /** Server-side deadline of the whole call (Connect-Timeout-Ms): envd kills the process at it. */
  deadlineMs?: number;
  signal?: AbortSignal | undefined;
}

const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * The in-sandbox daemon (envd) of one sandbox: Connect RPC in JSON (`process.Process`,
 * `filesystem.Filesystem`) and the REST `/files` endpoint. Every call carries the routing headers
 * (E2b-Sandbox-Id, E2b-Sandbox-Port) and the sandbox's access token. Failures are `RpcError`s.
 */
export class EnvdClient {
  /** envd's URL, parsed once: every command makes calls to it. */
  private readonly origin: URL;
  private readonly basePath: string;
  /** Headers of every call: the routing headers and the access token. */
  private readonly routing: Record<string, string>;

  constructor(private readonly config: EnvdClientConfig) {
    this.origin = new URL(config.baseUrl);
    this.basePath = this.origin.pathname.replace(/\/+$/, '');
    this.routing = {
      'E2b-Sandbox-Id': config.sandboxId,
      'E2b-Sandbox-Port': String(ENVD_PORT),
      ...(config.accessToken && { 'X-Access-Token': config.accessToken }),
    };
  }

  async unary(method: string, message: unknown, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const res = await this.call(
      method,
      { 'Content-Type': 'application/json', 'Connect-Protocol-Version': '1' },
      Buffer.from(JSON.stringify(message)),
      signal,
    );
    const text = await readBody(res, MAX_MESSAGE_BYTES, this.config.requestTimeoutMs);
    if (res.statusCode !== 200) throw envdError(res.statusCode, text, rpcCodeOfHttpStatus);
    return parseJsonObject(text);
  }

  /**
   * Starts a server-streaming call; resolves once the server has answered with its headers. The
   * messages come from the returned iterator, under the read deadline (keepalives reset it).
   */
  async stream(method: string, message: unknown, o: StreamOptions = {}): Promise<ConnectStream> {
    const keepaliveS = Math.max(1, Math.floor(this.config.streamIdleTimeoutMs / 3000));
    const res = await this.call(
      method,
      {
        'Content-Type': 'application/connect+json',
        'Connect-Protocol-Version': '1',
        'Keepalive-Ping-Interval': String(keepaliveS),
        ...(o.deadlineMs !== undefined && { 'Connect-Timeout-Ms': String(o.deadlineMs) }),
      },
      encodeJsonEnvelope(message),
      o.signal,
    );
    if (res.statusCode !== 200) {
      const text = await readBody(res, MAX_MESSAGE_BYTES, this.config.requestTimeoutMs);
      throw envdError(res.statusCode, text, rpcCodeOfHttpStatus);
    }
    const type = res.headers['content-type'] ?? '';
    if (!type.startsWith('application/connect+json')) {
      res.destroy();
      throw new RpcError(
        'internal',
        `envd answered ${method} with content type "${type}", not application/connect+json`,
      );
    }
    return new ConnectStream(res, this.config.streamIdleTimeoutMs, MAX_MESSAGE_BYTES);
  }

  /** GET /files: the file's bytes as a stream, once the server has said it exists. */
  async download(path: string, signal?: AbortSignal): Promise<IncomingMessage> {
    const res = await this.send('GET', `/files?path=${encodeURIComponent(path)}`, { headers: {}, signal });
    if (res.statusCode === 200) return res;
    throw envdError(
      res.statusCode ?? 0,
      await readBody(res, MAX_MESSAGE_BYTES, this.config.requestTimeoutMs),
      restCode,
    );
  }

  async readFile(path: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
    return readBody(await this.download(path, signal), maxBytes, this.config.requestTimeoutMs);
  }

  /** POST /files as application/octet-stream: creates parent directories, overwrites the file. */
  async upload(path: string, body: Buffer | Readable, signal?: AbortSignal): Promise<void> {
    const res = await this.send('POST', `/files?path=${encodeURIComponent(path)}`, {
      headers: {
        'Content-Type': 'application/octet-stream',
        ...(Buffer.isBuffer(body) && { 'Content-Length': String(body.length) }),
      },
      body,
      signal,
    });
    const text = await readBody(res, MAX_MESSAGE_BYTES, this.config.requestTimeoutMs);
    if (res.statusCode !== 200) throw envdError(res.statusCode ?? 0, text, restCode);
  }

  /** A Connect call (POST /<service>/<method>) through the transport's RPC client. */
  private call(
    method: string,
    headers: Record<string, string>,
    body: Buffer,
    signal: AbortSignal | undefined,
  ): Promise<Http1Response> {
    return this.config.transport.rpc.request({
      method: 'POST',
      origin: this.origin,
      path: `${this.basePath}/${method}`,
      headers: { ...headers, ...this.routing },
      body,
      timeoutMs: this.config.requestTimeoutMs,
      signal,
    });
  }

  private send(
    method: 'GET' | 'POST',
    pathAndQuery: string,
    o: { headers: Record<string, string>; body?: Buffer | Readable; signal?: AbortSignal | undefined },
  ): Promise<IncomingMessage> {
    return this.config.transport.request({
      method,
      url: new URL(this.basePath + pathAndQuery, this.origin),
      headers: { ...o.headers, ...this.routing },
      ...(o.body && { body: o.body }),
      timeoutMs: this.config.requestTimeoutMs,
      signal: o.signal,
    });
  }
}

/** The code of a REST (`/files`) status, whose bodies carry numeric codes. */
function restCode(status: number): RpcCode {
  const codes: Record<number, RpcCode> = {
    400: 'invalid_argument',
    401: 'unauthenticated',
    403: 'permission_denied',
    404: 'not_found',
    413: 'resource_exhausted',
    429: 'resource_exhausted',
    502: 'unavailable',
    503: 'unavailable',
    507: 'resource_exhausted',
  };
  return codes[status] ?? 'unknown';
}

function envdError(status: number, body: Buffer, codeOf: (status: number) => RpcCode): RpcError {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {}
  const connect = parseRpcErrorJson(json);
  if (connect) return connect;
  const message = (json as { message?: unknown } | undefined)?.message;
  const text = typeof message === 'string' ? message : body.toString('utf8').slice(0, 300).trim();
  return new RpcError(codeOf(status), `HTTP ${status}${text ? `: ${text}` : ''}`);
}

function parseJsonObject(text: Buffer): Record<string, unknown> {
  try {
    const json = JSON.parse(text.toString('utf8'));
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json;
  } catch {}
  throw new RpcError(
    'internal',
    `envd returned a body that is not a JSON object: ${text.toString('utf8').slice(0, 200)}`,
  );
}
