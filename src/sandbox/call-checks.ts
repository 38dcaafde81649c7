import { ConfigError } from '../errors.ts';
import { DEFAULT_READ_FILE_MAX_BYTES, type ReadFileOptions } from './types.ts';

/**
 * Checks of what callers pass to a sandbox, shared by the providers that run commands themselves; each
 * error names the sandbox.
 */

/** A shell string runs under /bin/sh -c; an argv must be a non-empty array of strings. Neither holds NUL. */
export function toArgv(sandboxId: string, command: string | readonly string[]): readonly string[] {
  const argv = typeof command === 'string' ? ['/bin/sh', '-c', command] : command;
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string')) {
    throw new ConfigError(
      `sandbox ${sandboxId}: a command is a shell string or a non-empty array of strings`,
    );
  }
  if (argv.some((a) => a.includes('\0'))) {
    throw new ConfigError(
      `sandbox ${sandboxId}: a command cannot contain a NUL byte (execve ends strings there)`,
    );
  }
  return argv;
}

/** Names without `=` or NUL, values strings without NUL: what execve accepts. */
export function checkEnv(sandboxId: string, env: Record<string, string> | undefined): void {
  for (const [k, v] of Object.entries(env ?? {})) {
    if (!k || k.includes('=') || k.includes('\0') || typeof v !== 'string' || v.includes('\0')) {
      throw new ConfigError(`sandbox ${sandboxId}: invalid environment variable ${JSON.stringify(k)}`);
    }
  }
}

/** readFile's cap: a positive integer of bytes, by default DEFAULT_READ_FILE_MAX_BYTES. */
export function readFileCap(sandboxId: string, options: ReadFileOptions | undefined): number {
  const max = options?.maxBytes ?? DEFAULT_READ_FILE_MAX_BYTES;
  if (!Number.isSafeInteger(max) || max < 0) {
    throw new ConfigError(
      `sandbox ${sandboxId}: readFile maxBytes must be a non-negative integer, got ${max}`,
    );
  }
  return max;
}

/** fork(n) makes n ≥ 1 sandboxes. */
export function assertForkCount(sandboxId: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new ConfigError(`sandbox ${sandboxId}: fork(n) needs a positive integer, got ${n}`);
  }
}
