import { posix } from 'node:path';
import { ConfigError } from '../errors.ts';

/**
 * The home of the user every sandgym sandbox runs as: envd resolves relative paths and `~` against the
 * user's home, and so does the server.
 */
export const SANDBOX_HOME = '/root';

/**
 * An absolute, normalized path inside the sandbox. The path is only ever used by commands running inside
 * the sandbox's own mount namespace, so `..` and symlinks cannot leave it; this only makes it absolute.
 */
export function resolveSandboxPath(path: unknown, field = 'path'): string {
  if (typeof path !== 'string' || path === '') throw new ConfigError(`${field} is required`);
  if (path.includes('\0')) throw new ConfigError(`${field} must not contain NUL bytes`);
  if (path.length > 4096) throw new ConfigError(`${field} is longer than 4096 bytes`);
  const expanded = path === '~' || path.startsWith('~/') ? SANDBOX_HOME + path.slice(1) : path;
  return posix.resolve(SANDBOX_HOME, expanded);
}
