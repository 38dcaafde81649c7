import { InfrastructureError } from '../../errors.ts';

/** What went wrong talking to a Tinker API server. */
export type TinkerApiErrorKind =
  /** The server answered a non-2xx status. */
  | 'http'
  /** The connection failed or dropped before a whole answer arrived. */
  | 'network'
  /** An attempt, or a future, passed its deadline. */
  | 'timeout'
  /** A 2xx answer that is not the JSON the protocol promises. */
  | 'malformed-response'
  /** The request reached the server, ran, and failed there (retrieve_future said so). */
  | 'request-failed'
  /** The engine was closed while the call was in flight. */
  | 'aborted'
  /** The server dropped a request's result (retrieve_future said 410): send the request again. */
  | 'expired';

const MAX_BODY_IN_MESSAGE = 500;

/**
 * A failed call to a Tinker API server (Tinker, SkyRL tx, `sandgym engine serve`). Keeps the endpoint,
 * status and what the server said; `isRetryable` says whether the same call can succeed later (408,
 * 429, 5xx, network faults, timeouts and server-side failures), after the client's own retries
 * were used up.
 */
export class TinkerApiError extends InfrastructureError {
  override name = 'TinkerApiError';
  readonly kind: TinkerApiErrorKind;
  /** The endpoint, e.g. `forward_backward`. */
  readonly endpoint: string;
  readonly status: number | undefined;
  /** What the server said, from the body's `detail` or `error`, or the raw body. */
  readonly detail: string | undefined;
  /** How long the server asked the client to wait (`Retry-After`), in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    fields: {
      kind: TinkerApiErrorKind;
      endpoint: string;
      status?: number;
      detail?: string;
      retryAfterMs?: number;
      isRetryable?: boolean;
      cause?: unknown;
    },
  ) {
    super(message, { cause: fields.cause, isRetryable: fields.isRetryable ?? defaultRetryable(fields) });
    this.kind = fields.kind;
    this.endpoint = fields.endpoint;
    this.status = fields.status;
    this.detail = fields.detail;
    this.retryAfterMs = fields.retryAfterMs;
  }
}

export function isTinkerApiError(e: unknown): e is TinkerApiError {
  return e instanceof TinkerApiError;
}

/**
 * Statuses worth another attempt: timeout, rate limit, server-side failures. Not 409: the Tinker API
 * uses it for a reused seq_id or an existing checkpoint name, which no retry resolves.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

function defaultRetryable(fields: { kind: TinkerApiErrorKind; status?: number }): boolean {
  switch (fields.kind) {
    case 'http':
      return fields.status !== undefined && isRetryableStatus(fields.status);
    case 'aborted':
    case 'request-failed':
    case 'expired':
      return false;
    default:
      return true;
  }
}

/**
 * What a server said in an error body: FastAPI's `{detail}` (a string, or validation errors), Tinker's
 * `{error}`, or the text itself, shortened for a message.
 */
export function errorDetail(body: string): string {
  let said: unknown = body;
  try {
    const json = JSON.parse(body) as { detail?: unknown; error?: unknown } | string;
    said = typeof json === 'string' ? json : (json?.detail ?? json?.error ?? body);
  } catch {
    // Not JSON: the text is the detail.
  }
  const text = typeof said === 'string' ? said : JSON.stringify(said);
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_BODY_IN_MESSAGE ? `${flat.slice(0, MAX_BODY_IN_MESSAGE)}…` : flat;
}
