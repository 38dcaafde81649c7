import { InfrastructureError } from '../../errors.ts';

/**
 * Connect RPC error codes (connectrpc.com/docs/protocol#error-codes) and their HTTP statuses, shared by
 * the e2b client and `sandgym serve`. On the wire a code is its snake_case name.
 */
export const RPC_CODES = {
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
} as const;

export type RpcCode = keyof typeof RPC_CODES;

export function isRpcCode(value: unknown): value is RpcCode {
  return typeof value === 'string' && Object.hasOwn(RPC_CODES, value);
}

/** The code a Connect client infers from a non-200 HTTP status without a Connect error body. */
export function rpcCodeOfHttpStatus(status: number): RpcCode {
  switch (status) {
    case 400:
      return 'internal';
    case 401:
      return 'unauthenticated';
    case 403:
      return 'permission_denied';
    case 404:
      return 'unimplemented';
    case 429:
    case 502:
    case 503:
    case 504:
      return 'unavailable';
    default:
      return 'unknown';
  }
}

/** An error of an envd RPC: what the server answered, or what a protocol violation amounts to. */
export class RpcError extends InfrastructureError {
  override name = 'RpcError';
  readonly code: RpcCode;

  constructor(code: RpcCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, isRetryable: code === 'unavailable' || code === 'resource_exhausted' });
    this.code = code;
  }

  get httpStatus(): number {
    return RPC_CODES[this.code];
  }

  /** The JSON body of a unary error response, and the `error` of an end-of-stream message. */
  toJSON(): { code: RpcCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

export function isRpcError(e: unknown): e is RpcError {
  return e instanceof RpcError;
}

/** Reads `{code, message}` as a Connect error, or undefined when it is not one. */
export function parseRpcErrorJson(value: unknown): RpcError | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, message } = value as { code?: unknown; message?: unknown };
  if (!isRpcCode(code)) return undefined;
  return new RpcError(code, typeof message === 'string' ? message : code);
}
