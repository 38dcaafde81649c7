import { InfrastructureError } from '../errors.ts';

/** What went wrong with a call to an LLM server. */
export type LlmApiErrorKind =
  /** The server answered with a non-2xx status. */
  | 'http'
  /** The connection failed or dropped before a whole answer arrived. */
  | 'network'
  /** No whole answer within the request's `timeoutMs`. */
  | 'timeout'
  /** A 2xx answer that is not the JSON (or event stream) the protocol promises. */
  | 'malformed-response'
  /** The caller's AbortSignal fired. */
  | 'aborted';

const MAX_BODY_IN_MESSAGE = 500;

/**
 * A failed call to an LLM server. Keeps the URL, status and body so logs show what the server said;
 * `isRetryable` says whether another attempt can succeed (408, 409, 429, 5xx, network faults,
 * timeouts, malformed answers), which is also what the samplers' own retry loop follows.
 */
export class LlmApiError extends InfrastructureError {
  override name = 'LlmApiError';
  readonly kind: LlmApiErrorKind;
  readonly url: string;
  readonly status: number | undefined;
  readonly responseBody: string | undefined;
  /** Requests made before giving up, this one included. */
  readonly attempts: number;

  constructor(
    message: string,
    fields: {
      kind: LlmApiErrorKind;
      url: string;
      status?: number;
      responseBody?: string;
      attempts?: number;
      isRetryable?: boolean;
      cause?: unknown;
    },
  ) {
    super(message, { cause: fields.cause, isRetryable: fields.isRetryable ?? defaultRetryable(fields) });
    this.kind = fields.kind;
    this.url = fields.url;
    this.status = fields.status;
    this.responseBody = fields.responseBody;
    this.attempts = fields.attempts ?? 1;
  }

  /** The same error after `attempts` requests, for the message the caller finally sees. */
  withAttempts(attempts: number): LlmApiError {
    const suffix = attempts > 1 ? ` (gave up after ${attempts} attempts)` : '';
    return new LlmApiError(this.message + suffix, {
      kind: this.kind,
      url: this.url,
      status: this.status,
      responseBody: this.responseBody,
      attempts,
      isRetryable: this.isRetryable,
      cause: this.cause,
    });
  }
}

export function isLlmApiError(e: unknown): e is LlmApiError {
  return e instanceof LlmApiError;
}

/** Statuses worth another attempt: timeout, conflict, rate limit, and server-side failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function defaultRetryable(fields: { kind: LlmApiErrorKind; status?: number }): boolean {
  switch (fields.kind) {
    case 'http':
      return fields.status !== undefined && isRetryableStatus(fields.status);
    case 'aborted':
      return false;
    default:
      return true;
  }
}

/** A response body short enough for an error message. */
export function clipBody(body: string): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_BODY_IN_MESSAGE ? `${flat.slice(0, MAX_BODY_IN_MESSAGE)}…` : flat;
}
