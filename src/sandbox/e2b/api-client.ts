import { SandboxError } from '../../errors.ts';
import { type ApiCallContext, apiError, retryAfterSeconds, serverMessageOf } from './api-errors.ts';
import { type HttpTransport, readBody } from './http-transport.ts';

/** A sandbox as the create, connect and fork calls describe it (E2B `Sandbox`). */
export interface CreatedSandbox {
  sandboxID: string;
  templateID: string;
  envdVersion: string;
  envdAccessToken?: string;
  /** Base domain of the sandbox's own host, when it differs from the client's. */
  domain?: string | null;
}

/** A sandbox as the list call describes it (E2B `ListedSandbox`). */
export interface ListedSandbox {
  sandboxID: string;
  templateID: string;
  metadata?: Record<string, string>;
  startedAt: string;
  endAt: string;
}

export interface NewSandbox {
  templateID: string;
  /** Lifetime in seconds. */
  timeout: number;
  metadata: Record<string, string>;
  envVars: Record<string, string>;
  allow_internet_access: boolean;
  secure: boolean;
}

export interface ApiClientConfig {
  apiUrl: string;
  apiKey: string;
  domain: string;
  requestTimeoutMs: number;
  transport: HttpTransport;
}

const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The E2B lifecycle REST API (spec/openapi.yml of e2b-dev/E2B), authenticated by X-API-Key. */
export class E2BApiClient {
  constructor(private readonly config: ApiClientConfig) {}

  async create(body: NewSandbox, o: { image: string; timeoutMs: number; signal?: AbortSignal | undefined }) {
    return (await this.call('POST', '/sandboxes', {
      body,
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      context: { action: 'create sandbox', template: body.templateID, image: o.image },
    })) as CreatedSandbox;
  }

  async list(): Promise<ListedSandbox[]> {
    const listed = await this.call('GET', '/sandboxes', { context: { action: 'list sandboxes' } });
    if (!Array.isArray(listed)) throw this.malformed('list sandboxes', listed);
    return listed as ListedSandbox[];
  }

  /** Kills a sandbox; false when it was already gone. */
  async kill(sandboxId: string): Promise<boolean> {
    const path = `/sandboxes/${encodeURIComponent(sandboxId)}`;
    const gone = await this.call('DELETE', path, {
      context: { action: 'kill sandbox', sandboxId },
      notFound: true,
    });
    return gone !== NOT_FOUND;
  }

  /** One result per fork: the new sandbox or why it failed (E2B `SandboxForkResult`). */
  async fork(sandboxId: string, count: number, timeoutS: number) {
    const results = await this.call('POST', `/sandboxes/${encodeURIComponent(sandboxId)}/fork`, {
      body: { count, timeout: timeoutS },
      context: { action: 'fork sandbox', sandboxId, optional: true },
    });
    if (!Array.isArray(results)) throw this.malformed('fork sandbox', results);
    return results as { sandbox?: CreatedSandbox; error?: { code: number; message: string } }[];
  }

  async snapshot(sandboxId: string, name: string): Promise<{ snapshotID: string; names: string[] }> {
    const info = (await this.call('POST', `/sandboxes/${encodeURIComponent(sandboxId)}/snapshots`, {
      body: { name },
      context: { action: 'snapshot sandbox', sandboxId, optional: true },
    })) as { snapshotID?: unknown; names?: unknown };
    if (typeof info?.snapshotID !== 'string') throw this.malformed('snapshot sandbox', info);
    return { snapshotID: info.snapshotID, names: Array.isArray(info.names) ? info.names : [] };
  }

  /** Whether the server knows `template` (GET /templates/{id}); any refusal counts as no. */
  async templateExists(template: string): Promise<boolean> {
    const found = await this.call('GET', `/templates/${encodeURIComponent(template)}`, {
      context: { action: 'get template', template },
      notFound: true,
    }).catch(() => NOT_FOUND);
    return found !== NOT_FOUND;
  }

  private async call(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    o: {
      body?: unknown;
      context: Omit<ApiCallContext, 'apiUrl' | 'domain'>;
      timeoutMs?: number;
      signal?: AbortSignal | undefined;
      /** Answer NOT_FOUND for a 404 instead of throwing. */
      notFound?: boolean;
    },
  ): Promise<unknown> {
    const timeoutMs = o.timeoutMs ?? this.config.requestTimeoutMs;
    const context: ApiCallContext = { ...o.context, apiUrl: this.config.apiUrl, domain: this.config.domain };
    const body = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
    let res: Awaited<ReturnType<HttpTransport['request']>>;
    let text: Buffer;
    try {
      res = await this.config.transport.request({
        method,
        url: new URL(this.config.apiUrl.replace(/\/+$/, '') + path),
        headers: {
          'X-API-Key': this.config.apiKey,
          Accept: 'application/json',
          ...(body && { 'Content-Type': 'application/json', 'Content-Length': String(body.length) }),
        },
        ...(body && { body }),
        timeoutMs,
        signal: o.signal,
      });
      text = await readBody(res, MAX_RESPONSE_BYTES, timeoutMs);
    } catch (e) {
      throw new SandboxError(
        context.sandboxId,
        `${context.action} at ${this.config.apiUrl} failed: ${(e as Error).message}`,
        { cause: e, isRetryable: !o.signal?.aborted },
      );
    }
    const status = res.statusCode ?? 0;
    if (status === 404 && o.notFound) return NOT_FOUND;
    if (status < 200 || status >= 300) {
      throw apiError(status, serverMessageOf(text), {
        ...context,
        retryAfterS: retryAfterSeconds(res.headers['retry-after']),
      });
    }
    if (text.length === 0) return undefined;
    try {
      return JSON.parse(text.toString('utf8'));
    } catch {
      throw this.malformed(context.action, text.toString('utf8').slice(0, 200));
    }
  }

  private malformed(action: string, got: unknown): SandboxError {
    return new SandboxError(
      undefined,
      `${action} at ${this.config.apiUrl} returned an unexpected body: ${JSON.stringify(got)?.slice(0, 200)}; ` +
        'is this an E2B-compatible API URL?',
    );
  }
}

const NOT_FOUND = Symbol('not found');
