import { setTimeout as sleep } from 'node:timers/promises';
import type { RetryPolicy } from '../../llm/index.ts';
import type { QueueState, RequestFailedResponse, RetrieveFutureRequest } from './protocol.ts';
import { errorDetail, TinkerApiError } from './tinker-api-error.ts';
import {
  BILLING_RETRY_MS,
  backoffDelayMs,
  type HttpAnswer,
  parseJson,
  type TinkerHttp,
} from './tinker-http.ts';

export interface RetrieveOptions {
  /** Deadline of the whole wait for the result. */
  deadlineMs: number;
  /**
   * Deadline of one long-poll request. The server holds retrieve_future until the result is ready or
   * its own deadline passes (then 408); whichever side gives up first, the client asks again.
   */
  pollTimeoutMs: number;
  /** Backoff between attempts that failed without an answer (network faults, 5xx). */
  retry: RetryPolicy;
  signal?: AbortSignal;
  onQueueState?: (event: { requestId: string; queueState: QueueState | 'unknown' }) => void;
  /** How long 402 answers pause the wait before it gives up (see TinkerHttpOptions). Default 1 hour. */
  billingPauseMs?: number;
}

const ENDPOINT = 'retrieve_future';

/**
 * A bare 400 while polling may come from a proxy rather than the server, so the SDK asks again this
 * many times before taking it as the request's failure (SkyRL reports failures as 400 `{detail}`).
 */
export const BAD_REQUEST_RETRIES = 3;

/**
 * Waits for the result of request `requestId` (what: "forward_backward on model_1", for messages),
 * with the SDK's semantics: 408 and `{type: "try_again"}` mean "ask again"; an answer with `error`
 * (Tinker) means the request ran and failed, and so does a 400 (SkyRL) once it has been asked
 * BAD_REQUEST_RETRIES more times; 402 pauses (billing) as TinkerHttp does; 410 means the result is gone
 * and throws kind `expired`, for the caller to send the request again; a dropped connection, 429 or a
 * 5xx is retried with backoff, up to the policy's retries in a row, always within `deadlineMs`.
 */
export async function retrieveFuture<T>(
  http: TinkerHttp,
  requestId: string,
  what: string,
  options: RetrieveOptions,
): Promise<T> {
  const deadline = Date.now() + options.deadlineMs;
  const body: RetrieveFutureRequest = { request_id: requestId, allow_metadata_only: false };
  let faults = 0;
  let badRequests = 0;
  let billingSince: number | undefined;
  for (;;) {
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) throw notDone(what, requestId, options.deadlineMs);
    let answer: HttpAnswer | undefined;
    let fault: TinkerApiError | undefined;
    try {
      answer = await http.send('POST', ENDPOINT, body, {
        timeoutMs: Math.min(options.pollTimeoutMs, remainingMs),
        signal: options.signal,
      });
    } catch (e) {
      // A long poll that outlived its own deadline is normal: ask again.
      if (!(e instanceof TinkerApiError) || !e.isRetryable) throw e;
      if (e.kind !== 'timeout') fault = e;
    }
    const outcome: Outcome<T> = answer
      ? interpret<T>(http, answer, what, requestId)
      : fault
        ? { fault }
        : { tryAgain: 'unknown' };
    if ('result' in outcome) return outcome.result;
    if ('tryAgain' in outcome) {
      faults = 0;
      badRequests = 0;
      options.onQueueState?.({ requestId, queueState: outcome.tryAgain });
      continue;
    }
    if ('badRequest' in outcome) {
      if (badRequests++ >= BAD_REQUEST_RETRIES) {
        throw failed(what, requestId, { error: outcome.badRequest, category: 'user' });
      }
      continue;
    }
    let delayMs: number;
    if (outcome.fault.status === 402) {
      billingSince ??= Date.now();
      if (Date.now() - billingSince >= (options.billingPauseMs ?? 3_600_000)) throw outcome.fault;
      delayMs = BILLING_RETRY_MS;
    } else {
      if (faults >= options.retry.maxRetries) throw gaveUp(what, requestId, outcome.fault, faults + 1);
      delayMs = backoffDelayMs(faults++, options.retry);
    }
    delayMs = Math.min(delayMs, Math.max(0, deadline - Date.now()));
    try {
      await sleep(delayMs, undefined, { signal: options.signal });
    } catch (e) {
      throw new TinkerApiError(`${what}: aborted (the engine was closed)`, {
        kind: 'aborted',
        endpoint: ENDPOINT,
        cause: e,
      });
    }
  }
}

type Outcome<T> =
  | { result: T }
  | { tryAgain: QueueState | 'unknown' }
  | { badRequest: string }
  | { fault: TinkerApiError };

function interpret<T>(http: TinkerHttp, answer: HttpAnswer, what: string, requestId: string): Outcome<T> {
  if (answer.status === 408) return { tryAgain: queueState(answer.text) };
  if (answer.status === 400) return { badRequest: errorDetail(answer.text) };
  if (answer.status === 410) {
    throw new TinkerApiError(
      `${what}: the server no longer holds the result of request ${requestId} (expired); send the request again`,
      { kind: 'expired', endpoint: ENDPOINT, status: 410, detail: errorDetail(answer.text) },
    );
  }
  if (answer.status < 200 || answer.status >= 300) {
    const error = http.statusError('POST', ENDPOINT, answer);
    if (!error.isRetryable && answer.status !== 402) throw error;
    return { fault: error };
  }
  const json = parseJson<Record<string, unknown> | null>('POST', ENDPOINT, answer);
  if (json?.type === 'try_again') return { tryAgain: queueState(answer.text) };
  if (json && typeof json.error === 'string')
    throw failed(what, requestId, json as unknown as RequestFailedResponse);
  return { result: json as T };
}

function queueState(text: string): QueueState | 'unknown' {
  try {
    const state = (JSON.parse(text) as { queue_state?: unknown }).queue_state;
    return state === 'active' || state === 'paused_capacity' || state === 'paused_rate_limit'
      ? state
      : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** A request the server ran and failed; only a server-side failure may pass on another try. */
function failed(what: string, requestId: string, response: RequestFailedResponse): TinkerApiError {
  const user = response.category === 'user';
  return new TinkerApiError(
    `${what} failed on the server (request ${requestId}): ${response.error}${user ? '' : ' (a server-side failure; the server log may say more)'}`,
    { kind: 'request-failed', endpoint: ENDPOINT, detail: response.error, isRetryable: !user },
  );
}

function gaveUp(what: string, requestId: string, fault: TinkerApiError, attempts: number): TinkerApiError {
  return new TinkerApiError(
    `${what}: waiting for the result of request ${requestId}: ${fault.message} (gave up after ${attempts} attempts)`,
    { kind: fault.kind, endpoint: ENDPOINT, status: fault.status, detail: fault.detail, cause: fault },
  );
}

function notDone(what: string, requestId: string, deadlineMs: number): TinkerApiError {
  return new TinkerApiError(
    `${what}: request ${requestId} did not finish within ${deadlineMs} ms; if the server is only busy, raise futureTimeoutMs`,
    { kind: 'timeout', endpoint: ENDPOINT },
  );
}
