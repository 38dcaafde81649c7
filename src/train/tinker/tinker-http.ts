import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import type { RetryPolicy } from '../../llm/index.ts';
import { API_KEY_HEADER, API_PREFIX, IDEMPOTENCY_HEADER } from './protocol.ts';
import { errorDetail, TinkerApiError } from './tinker-api-error.ts';

export interface TinkerHttpOptions {
  /** The server's root, e.g. `http://127.0.0.1:8000`; endpoints are under `<baseUrl>/api/v1/`. */
  baseUrl: string;
  /** Sent as `X-API-Key`. */
  apiKey?: string;
  retry: RetryPolicy;
  /** Injected for tests and proxies; default the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * How long a `402` (billing: out of credit) pauses the client, retrying every 5 s, before it gives
   * up; the SDK's `billing_exception_max_pause_duration_sec`. Default 1 hour.
   */
  billingPauseMs?: number;
}

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** The SDK's pause between tries while the server answers 402. */
export const BILLING_RETRY_MS = 5_000;

/** An HTTP answer, read whole. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export interface CallOptions {
  /** Deadline of each attempt, from sending the request to the last byte of the answer. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * The transport of the Tinker API: JSON over HTTP with the API key, a deadline on every attempt,
 * retries with backoff of what can succeed later (429, 5xx, network faults, timeouts), and one
 * `X-Idempotency-Key` per logical POST that every retry repeats, so a server that saw the first
 * attempt does the work once.
 */
export class TinkerHttp {
  readonly baseUrl: string;
  private readonly options: TinkerHttpOptions;
  /** What goes in X-API-Key: the API key, or the JWT a server gave for it (see useToken). */
  private credential: string | undefined;

  constructor(options: TinkerHttpOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.options = options;
    this.credential = options.apiKey;
  }

  /** Sends `token` in X-API-Key from now on (a server with `pjwt_auth_enabled` trades the key for it). */
  useToken(token: string): void {
    this.credential = token;
  }

  /** DELETE `endpoint`, retrying per the policy; the answer's JSON, or undefined for an empty answer. */
  delete<T>(endpoint: string, options: CallOptions): Promise<T | undefined> {
    return this.withRetries(endpoint, options, () =>
      this.attempt<T | undefined>('DELETE', endpoint, undefined, options),
    );
  }

  /** POSTs `body` to `endpoint`, retrying per the policy; the answer's JSON. */
  post<T>(endpoint: string, body: unknown, options: CallOptions): Promise<T> {
    const idempotencyKey = randomUUID();
    return this.withRetries(endpoint, options, () =>
      this.attempt<T>('POST', endpoint, body, options, idempotencyKey),
    );
  }

  get<T>(endpoint: string, options: CallOptions): Promise<T> {
    return this.withRetries(endpoint, options, () => this.attempt<T>('GET', endpoint, undefined, options));
  }

  /**
   * GETs `path` from the server's root (outside /api/v1, e.g. FastAPI's `/openapi.json`) once; its
   * JSON, or undefined when there is none: for optional facts about the server, never for its API.
   */
  async probe<T>(path: string, options: CallOptions): Promise<T | undefined> {
    try {
      const response = await (this.options.fetch ?? fetch)(`${this.baseUrl}${path}`, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.any([
          AbortSignal.timeout(options.timeoutMs),
          ...(options.signal ? [options.signal] : []),
        ]),
      });
      return response.ok ? ((await response.json()) as T) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * One request, no retries: the answer's JSON, or a TinkerApiError (status, network, deadline,
   * malformed body).
   */
  async attempt<T>(
    method: HttpMethod,
    endpoint: string,
    body: unknown,
    options: CallOptions,
    idempotencyKey?: string,
  ): Promise<T> {
    const answer = await this.send(method, endpoint, body, options, idempotencyKey);
    if (answer.status < 200 || answer.status >= 300) throw this.statusError(method, endpoint, answer);
    if (answer.status === 204 || answer.text === '') return undefined as T;
    return parseJson<T>(method, endpoint, answer);
  }

  /**
   * One request whose answer comes back whatever its status; throws only when no answer arrived
   * (network, deadline). For callers that give statuses their own meaning, like retrieve_future's 408.
   */
  async send(
    method: HttpMethod,
    endpoint: string,
    body: unknown,
    options: CallOptions,
    idempotencyKey?: string,
  ): Promise<HttpAnswer> {
    const url = `${this.baseUrl}${API_PREFIX}/${endpoint}`;
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.credential) headers[API_KEY_HEADER] = this.credential;
    if (idempotencyKey) headers[IDEMPOTENCY_HEADER] = idempotencyKey;
    try {
      const response = await (this.options.fetch ?? fetch)(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch (e) {
      throw this.transportError(endpoint, e, options, timeout);
    }
  }

  /**
   * `once`, retried by p-retry with exponential backoff (jittered, so clients hit by one outage do not
   * come back in lockstep) while the error is retryable; a server's Retry-After is waited out on top.
   * A 402 (out of credit) pauses BILLING_RETRY_MS at a time without using up retries, as the SDK does,
   * until `billingPauseMs` has passed.
   */
  private async withRetries<T>(endpoint: string, options: CallOptions, once: () => Promise<T>): Promise<T> {
    const policy = this.options.retry;
    const billingPauseMs = this.options.billingPauseMs ?? 3_600_000;
    let billingSince: number | undefined;
    let attempts = 0;
    const billing = (e: unknown) => e instanceof TinkerApiError && e.status === 402;
    try {
      return await pRetry(
        () => {
          attempts++;
          return once();
        },
        {
          retries: policy.maxRetries,
          minTimeout: policy.initialDelayMs,
          maxTimeout: policy.maxDelayMs,
          factor: 2,
          randomize: true,
          signal: options.signal,
          shouldConsumeRetry: ({ error }) => !billing(error),
          shouldRetry: ({ error }) => {
            if (!billing(error)) return error instanceof TinkerApiError && error.isRetryable;
            billingSince ??= Date.now();
            return Date.now() - billingSince < billingPauseMs;
          },
          onFailedAttempt: async ({ error, retriesLeft }) => {
            let wait: number | undefined;
            if (billing(error)) wait = BILLING_RETRY_MS;
            else if (error instanceof TinkerApiError && error.isRetryable && retriesLeft > 0) {
              wait = error.retryAfterMs && Math.min(error.retryAfterMs, policy.maxDelayMs);
            }
            if (wait) await sleep(wait, undefined, { signal: options.signal });
          },
        },
      );
    } catch (e) {
      if (options.signal?.aborted)
        throw e instanceof TinkerApiError && e.kind === 'aborted' ? e : aborted(endpoint, e);
      throw attempts > 1 && e instanceof Error ? withAttempts(e, attempts) : e;
    }
  }

  private transportError(endpoint: string, e: unknown, options: CallOptions, timeout: AbortSignal) {
    if (options.signal?.aborted) return aborted(endpoint, e);
    if (timeout.aborted) {
      return new TinkerApiError(
        `${endpoint}: no complete answer from ${this.baseUrl} within ${options.timeoutMs} ms; if the server is only slow, raise requestTimeoutMs`,
        { kind: 'timeout', endpoint, cause: e },
      );
    }
    return new TinkerApiError(
      `${endpoint}: cannot reach the Tinker API at ${this.baseUrl}: ${networkReason(e)}; is the server running (e.g. "sandgym engine serve") and is TINKER_BASE_URL right?`,
      { kind: 'network', endpoint, cause: e },
    );
  }

  /** The error for a non-2xx answer, with what the server said and, for auth, what to do. */
  statusError(method: string, endpoint: string, answer: HttpAnswer): TinkerApiError {
    const detail = errorDetail(answer.text);
    const status = answer.status;
    const hint = this.explainStatus(status);
    const wait = answer.headers.get('retry-after')?.trim();
    return new TinkerApiError(
      `${method} ${endpoint}: HTTP ${status}${detail ? `: ${detail}` : ''}${hint ? `; ${hint}` : ''}`,
      {
        kind: 'http',
        endpoint,
        status,
        detail,
        retryAfterMs: wait && /^\d+(\.\d+)?$/.test(wait) ? Number(wait) * 1000 : undefined,
      },
    );
  }

  private explainStatus(status: number): string | undefined {
    if (status === 401 || status === 403) {
      return this.options.apiKey
        ? `the server rejected the API key; set TINKER_API_KEY (or engine.tinker.api_key) to the key ${this.baseUrl} expects`
        : `the server requires an API key; set TINKER_API_KEY (or engine.tinker.api_key)`;
    }
    if (status === 429) return 'the server is rate-limiting; retried with backoff';
    if (status === 402) return 'the account behind the API key is out of credit (billing)';
    return undefined;
  }
}

/**
 * Delay before retry number `retry` (0 for the first): `initial·2^retry` capped at `maxDelayMs`, of
 * which the upper half is random, so clients hit by one outage do not come back in lockstep; never
 * shorter than what the server asked for (itself capped).
 */
export function backoffDelayMs(
  retry: number,
  policy: RetryPolicy,
  serverAskedMs?: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  const jittered = ceiling / 2 + random() * (ceiling / 2);
  return Math.min(policy.maxDelayMs, Math.max(jittered, serverAskedMs ?? 0));
}

/** The JSON of a 2xx answer; a malformed-response error when it is not JSON. */
export function parseJson<T>(method: string, endpoint: string, answer: HttpAnswer): T {
  try {
    return JSON.parse(answer.text) as T;
  } catch (e) {
    throw new TinkerApiError(
      `${method} ${endpoint}: the server's answer is not JSON: ${errorDetail(answer.text) || '(empty body)'}`,
      { kind: 'malformed-response', endpoint, status: answer.status, cause: e },
    );
  }
}

function aborted(endpoint: string, cause: unknown): TinkerApiError {
  return new TinkerApiError(`${endpoint}: aborted (the engine was closed)`, {
    kind: 'aborted',
    endpoint,
    cause,
  });
}

function withAttempts(e: Error, attempts: number): Error {
  if (!(e instanceof TinkerApiError)) return e;
  return new TinkerApiError(`${e.message} (gave up after ${attempts} attempts)`, {
    kind: e.kind,
    endpoint: e.endpoint,
    status: e.status,
    detail: e.detail,
    retryAfterMs: e.retryAfterMs,
    isRetryable: e.isRetryable,
    cause: e.cause,
  });
}

/** The innermost reason of a fetch failure (undici wraps ECONNREFUSED and friends in `cause`). */
function networkReason(e: unknown): string {
  let reason = e instanceof Error ? e.message : String(e);
  let cause = e instanceof Error ? e.cause : undefined;
  while (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    reason = typeof code === 'string' ? `${code} (${cause.message})` : cause.message;
    cause = cause.cause;
  }
  return reason;
}
