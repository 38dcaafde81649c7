/**
 * The one error root of sandgym. Messages say what happened, to what, and what to do:
 * `sandbox abc123: image "x" not found locally; run "sandgym images build x" or pull it`.
 *
 * `isRetryable` tells callers (the rollout engine's retry loop, HTTP clients) whether trying again can
 * succeed; check kinds with the type guards, never by matching message text.
 */
export class SandgymError extends Error {
  override name = 'SandgymError';
  readonly isRetryable: boolean;

  constructor(message: string, options: { cause?: unknown; isRetryable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.isRetryable = options.isRetryable ?? false;
  }
}

/** Bad configuration or arguments: fix the input, retrying will not help. */
export class ConfigError extends SandgymError {
  override name = 'ConfigError';
}

/**
 * A fault of the infrastructure an episode runs on — the sandbox, the LLM server, the training engine's
 * service — not of sandgym's code or the agent: the only errors an episode absorbs as a masked `error`
 * result (and retries). Everything else, a TypeError in a tool included, is a bug and stops the run.
 */
export class InfrastructureError extends SandgymError {
  override name = 'InfrastructureError';
}

/** A sandbox is broken, closed, or could not be created. Exec failures are data, not this. */
export class SandboxError extends InfrastructureError {
  override name = 'SandboxError';
  readonly sandboxId: string | undefined;

  constructor(
    sandboxId: string | undefined,
    message: string,
    options: { cause?: unknown; isRetryable?: boolean } = {},
  ) {
    super(sandboxId ? `sandbox ${sandboxId}: ${message}` : message, options);
    this.sandboxId = sandboxId;
  }
}

/**
 * A sandbox file is larger than the caller's read cap (`readFile`'s `maxBytes`): nothing past the cap was
 * read into host memory. Tools turn it into an observation; retrying will not help.
 */
export class FileTooLargeError extends SandboxError {
  override name = 'FileTooLargeError';

  constructor(
    sandboxId: string,
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super(
      sandboxId,
      `readFile ${path}: larger than ${maxBytes} bytes (the read cap); read part of it with exec ` +
        '(head -c, sed -n), or copy it with downloadDir',
    );
  }
}

export function isFileTooLargeError(e: unknown): e is FileTooLargeError {
  return e instanceof FileTooLargeError;
}

/** A dataset row or file that does not match the schema. */
export class DatasetError extends SandgymError {
  override name = 'DatasetError';
}

export function isSandgymError(e: unknown): e is SandgymError {
  return e instanceof SandgymError;
}

export function isSandboxError(e: unknown): e is SandboxError {
  return e instanceof SandboxError;
}

/** The sandbox, the LLM server or the engine failed: an episode may end as `error`; anything else propagates. */
export function isInfrastructureFault(e: unknown): e is InfrastructureError {
  return e instanceof InfrastructureError;
}

export function isConfigError(e: unknown): e is ConfigError {
  return e instanceof ConfigError;
}

/** The message of anything thrown, for logs and observations. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
