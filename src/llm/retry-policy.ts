/** How an LLM client retries failed calls: exponential backoff with jitter, honouring Retry-After. */
export interface RetryPolicy {
  /** Attempts after the first one. Default 4. */
  maxRetries: number;
  /** Base delay before the first retry; it doubles each retry. Default 500 ms. */
  initialDelayMs: number;
  /** Cap on one delay. A server asking to wait longer than this is not retried. Default 30 s. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 4, initialDelayMs: 500, maxDelayMs: 30_000 };

/**
 * Delay before retry number `retry` (0 for the first retry): `initial·2^retry`, capped, of which the
 * upper half is random ("equal jitter"), so many clients hit by one outage do not return in lockstep
 * while each still waits longer after every failure.
 */
export function backoffDelayMs(
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return ceiling / 2 + random() * (ceiling / 2);
}

/**
 * How long the server asked us to wait, in ms, from `retry-after-ms` (OpenAI, Azure) or `Retry-After`
 * (seconds or an HTTP date, RFC 9110 §10.2.3). Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(headers: Headers, nowMs: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * The wait before retry number `retry`, or undefined when the policy says stop: retries used up, or
 * the server asked for a longer pause than `maxDelayMs` (sleeping less would ignore it, sleeping
 * that long would stall the episode).
 */
export function retryDelayMs(
  retry: number,
  policy: RetryPolicy,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (retry >= policy.maxRetries) return undefined;
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxDelayMs) return undefined;
  return Math.max(backoffDelayMs(retry, policy, random), retryAfterMs ?? 0);
}
