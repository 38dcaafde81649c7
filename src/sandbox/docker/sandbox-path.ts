import { posix } from 'node:path';
import { ConfigError } from '../../errors.ts';

/**
 * A path inside the sandbox, normalized. Paths must be absolute: a relative path has no meaning for a
 * container's file API, and refusing it loudly beats guessing a base. `..` cannot climb out of the
 * container — the engine resolves paths (and symlinks) inside the container's root — so it only
 * normalizes.
 */
export function sandboxPath(sandboxId: string, path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) {
    throw new ConfigError(
      `sandbox ${sandboxId}: path ${JSON.stringify(path)} must be absolute (start with "/"); ` +
        'file paths name files inside the sandbox, never on the host',
    );
  }
  const normalized = posix.normalize(path);
  return normalized.length > 1 ? normalized.replace(/\/+$/, '') : normalized;
}
