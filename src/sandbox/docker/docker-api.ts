import type Docker from 'dockerode';
import { SandboxError } from '../../errors.ts';

/** Deadline of an ordinary API call (inspect, create, kill, …). The socket can hang; nothing waits forever. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/**
 * Deadline of calls that create or delete a container's filesystem. On btrfs with quotas these queue
 * behind each other in the engine: with a dozen concurrent users of this engine a create took 82 s and
 * a remove 80 s (docker CLI, measured here), so an ordinary deadline would fail healthy work.
 */
export const STORAGE_CALL_TIMEOUT_MS = 5 * 60_000;
const STORAGE_CALLS = new Set(['container create', 'container start', 'container remove', 'image remove']);

export interface CallOptions {
  /** Deadline of this call; default `STORAGE_CALL_TIMEOUT_MS` for storage calls, else `DEFAULT_CALL_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** The caller's cancellation; its reason is rethrown as is. */
  signal?: AbortSignal | undefined;
  /** Named in error messages. */
  sandboxId?: string | undefined;
}

/** Error codes of a socket that no engine answers on. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ECONNRESET', 'EPIPE', 'ENOTFOUND']);

/**
 * Every dockerode call goes through `call`: it gets an AbortSignal that fires at the deadline (dockerode
 * passes it to the HTTP request) and is raced against that deadline too, because a few dockerode methods
 * (image inspect, for one) drop the signal. A connection error becomes a `SandboxError` that says how to
 * start the engine; an HTTP error from the engine is rethrown unchanged (its `statusCode` tells callers
 * what happened).
 */
export class DockerApi {
  constructor(
    readonly docker: Docker,
    /** Where the engine listens, for messages: `unix:///var/run/docker.sock` or `tcp://host:port`. */
    readonly endpoint: string,
  ) {}

  async call<T>(
    what: string,
    fn: (signal: AbortSignal) => Promise<T>,
    options: CallOptions = {},
  ): Promise<T> {
    const timeoutMs =
      options.timeoutMs ?? (STORAGE_CALLS.has(what) ? STORAGE_CALL_TIMEOUT_MS : DEFAULT_CALL_TIMEOUT_MS);
    options.signal?.throwIfAborted();
    const controller = new AbortController();
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      onAbort = () => reject(controller.signal.reason);
      controller.signal.addEventListener('abort', onAbort, { once: true });
    });
    const deadline = new DeadlineExceeded(what, timeoutMs);
    const timer = setTimeout(() => controller.abort(deadline), timeoutMs);
    const relay = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', relay, { once: true });
    try {
      return await Promise.race([fn(controller.signal), stopped]);
    } catch (e) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (controller.signal.reason === deadline) {
        throw new SandboxError(
          options.sandboxId,
          `the Docker engine at ${this.endpoint} did not answer "${what}" within ${timeoutMs} ms; ` +
            'check that dockerd is healthy ("docker info") and not overloaded',
          { cause: e, isRetryable: true },
        );
      }
      throw this.mapConnectionError(e, what, options.sandboxId);
    } finally {
      clearTimeout(timer);
      if (onAbort) controller.signal.removeEventListener('abort', onAbort);
      options.signal?.removeEventListener('abort', relay);
      // The losing side of the race may still reject later; that rejection is expected and not an error.
      stopped.catch(() => {});
    }
  }

  /** A connection-level failure as a `SandboxError` naming the remedy; anything else unchanged. */
  mapConnectionError(e: unknown, what: string, sandboxId?: string): unknown {
    const code = errorCode(e);
    if (code === undefined || !UNREACHABLE_CODES.has(code) || httpStatus(e) !== undefined) return e;
    if (code === 'EACCES') {
      return new SandboxError(
        sandboxId,
        `permission denied on the Docker engine socket ${this.endpoint} ("${what}"); add your user to the ` +
          '"docker" group and log in again, or run as root',
        { cause: e },
      );
    }
    return new SandboxError(
      sandboxId,
      `cannot reach the Docker engine at ${this.endpoint} ("${what}": ${code}); start it with ` +
        '"bash scripts/setup.sh" (or "sudo systemctl start docker"), or use sandbox.provider=local',
      { cause: e, isRetryable: true },
    );
  }
}

class DeadlineExceeded extends Error {
  override name = 'DeadlineExceeded';
  constructor(what: string, timeoutMs: number) {
    super(`"${what}" took longer than ${timeoutMs} ms`);
  }
}

/** The HTTP status of an engine error response (docker-modem sets `statusCode`), if it is one. */
export function httpStatus(e: unknown): number | undefined {
  const status = (e as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The engine's own message of an error response, without docker-modem's "(HTTP code …)" prefix. */
export function engineMessage(e: unknown): string {
  const json = (e as { json?: unknown } | null)?.json;
  if (json && typeof json === 'object' && typeof (json as { message?: unknown }).message === 'string') {
    return (json as { message: string }).message;
  }
  if (typeof json === 'string' && json) return json.trim();
  const message = e instanceof Error ? e.message : String(e);
  return message.replace(/^\(HTTP code \d+\) [^-]*- /, '').trim();
}

function errorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Where a dockerode client talks to, for messages. */
export function describeEndpoint(docker: Docker): string {
  const modem = docker.modem as unknown as { socketPath?: unknown; host?: string; port?: string | number };
  if (typeof modem.socketPath === 'string') return `unix://${modem.socketPath}`;
  if (modem.host) return `tcp://${modem.host}${modem.port ? `:${modem.port}` : ''}`;
  return 'the default Docker socket';
}
