import { ConfigError } from '../../errors.ts';

const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:localhost|[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+)(?::\d+)?$|^[a-zA-Z0-9-]+:\d+$/;
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

/**
 * The canonical form of an image reference, as Docker writes it: `name[:tag]` with `:latest` added when
 * neither a tag nor a digest is given, so `sandgym/base` and `sandgym/base:latest` are one image.
 * Throws `ConfigError` for a reference Docker would reject.
 */
export function normalizeImageName(ref: string): string {
  const bad = (why: string) =>
    new ConfigError(`invalid image name "${ref}": ${why}; expected e.g. "sandgym/base" or "repo/name:tag"`);
  if (typeof ref !== 'string' || ref.length === 0) throw bad('empty');
  if (ref.length > 255) throw bad('longer than 255 characters');
  let rest = ref;
  let suffix = ':latest';
  const at = rest.indexOf('@');
  if (at >= 0) {
    if (!DIGEST.test(rest.slice(at + 1))) throw bad('the digest must be sha256:<64 hex>');
    suffix = rest.slice(at);
    rest = rest.slice(0, at);
  }
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    const tag = rest.slice(colon + 1);
    if (!TAG.test(tag)) throw bad(`bad tag "${tag}"`);
    suffix = at >= 0 ? `:${tag}${suffix}` : `:${tag}`;
    rest = rest.slice(0, colon);
  }
  const parts = rest.split('/');
  const first = parts.length > 1 && DOMAIN.test(parts[0]!) ? 1 : 0;
  for (const p of parts.slice(first)) {
    if (!COMPONENT.test(p)) throw bad(`bad path component "${p}" (lowercase letters, digits, . _ -)`);
  }
  return rest + suffix;
}
