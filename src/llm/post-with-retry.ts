import { setTimeout as sleep } from 'node:timers/promises';
import { clipBody, LlmApiError } from './llm-api-error.ts';
import { parseRetryAfterMs, type RetryPolicy, retryDelayMs } from './retry-policy.ts';

/** Settings of one HTTP call to an LLM server. */
export interface PostOptions {
  /** Deadline of each attempt, from sending the request to the last byte of the answer. */
  timeoutMs: number;
  retry: RetryPolicy;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Injected for tests and proxies; default the global `fetch`. */
  fetch?: typeof fetch;
  /** The remedy to append to an error for a given status (401: check the key, 404: the model…). */
  explainStatus?: (status: number) => string | undefined;
  /** Told before each retry; for logs. */
  onRetry?: (info: { retry: number; delayMs: number; error: LlmApiError }) => void;
}

/**
 * Reads a 2xx answer into a value; throws LlmApiError('malformed-response') when the body is not what
 * the protocol promises. Runs inside the attempt, so a stream cut halfway is retried like any fault.
 */
export type ReadBody<T> = (response: Response, url: string) => Promise<T>;

/**
 * POSTs `body` as JSON and reads the answer with `read`, retrying what can succeed on another try
 * (see `LlmApiError.isRetryable`). Nothing reaches the caller until an attempt has fully succeeded,
 * so a retry never duplicates output.
 */
export async function postWithRetry<T>(
  url: string,
  body: unknown,
  options: PostOptions,
  read: ReadBody<T>,
): Promise<T> {
  const payload = JSON.stringify(body);
  for (let attempt = 1; ; attempt++) {
    let error: LlmApiError;
    let retryAfterMs: number | undefined;
    try {
      return await attemptOnce(url, payload, options, read);
    } catch (e) {
      if (!(e instanceof AttemptFailure)) throw e;
      error = e.error;
      retryAfterMs = e.retryAfterMs;
    }
    const delayMs = error.isRetryable ? retryDelayMs(attempt - 1, options.retry, retryAfterMs) : undefined;
    if (delayMs === undefined) throw error.withAttempts(attempt);
    options.onRetry?.({ retry: attempt, delayMs, error });
    try {
      await sleep(delayMs, undefined, { signal: options.signal });
    } catch (e) {
      throw abortedError(url, e).withAttempts(attempt);
    }
  }
}

/** One attempt's failure, with the wait the server asked for. */
class AttemptFailure extends Error {
  constructor(
    readonly error: LlmApiError,
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

async function attemptOnce<T>(
  url: string,
  payload: string,
  options: PostOptions,
  read: ReadBody<T>,
): Promise<T> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const doFetch = options.fetch ?? fetch;
  try {
    const response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
      body: payload,
      signal,
    });
    if (!response.ok) {
      const text = await response.text();
      throw new AttemptFailure(
        httpError(url, response.status, response.statusText, text, options),
        parseRetryAfterMs(response.headers),
      );
    }
    return await read(response, url);
  } catch (e) {
    if (e instanceof AttemptFailure) throw e;
    if (options.signal?.aborted) throw abortedError(url, e);
    if (timeout.aborted) {
      throw new AttemptFailure(
        new LlmApiError(
          `POST ${url}: no complete answer within ${options.timeoutMs} ms; if the server is only slow, raise the sampler's timeoutMs`,
          { kind: 'timeout', url, cause: e },
        ),
      );
    }
    if (e instanceof LlmApiError) throw new AttemptFailure(e);
    throw new AttemptFailure(
      new LlmApiError(
        `POST ${url}: connection failed: ${networkReason(e)}; is the server running and reachable?`,
        {
          kind: 'network',
          url,
          cause: e,
        },
      ),
    );
  }
}

function httpError(
  url: string,
  status: number,
  statusText: string,
  body: string,
  options: PostOptions,
): LlmApiError {
  const hint = options.explainStatus?.(status);
  const said = body.trim() ? `: ${clipBody(body)}` : '';
  return new LlmApiError(`POST ${url}: HTTP ${status} ${statusText}${said}${hint ? `; ${hint}` : ''}`, {
    kind: 'http',
    url,
    status,
    responseBody: body,
  });
}

function abortedError(url: string, cause: unknown): LlmApiError {
  return new LlmApiError(`POST ${url}: aborted by the caller`, { kind: 'aborted', url, cause });
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

/** Reads a JSON body; the usual `ReadBody` for non-streaming endpoints. */
export async function readJson(response: Response, url: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new LlmApiError(`POST ${url}: the answer is not valid JSON: ${clipBody(text) || '(empty body)'}`, {
      kind: 'malformed-response',
      url,
      status: response.status,
      responseBody: text,
      cause: e,
    });
  }
}
