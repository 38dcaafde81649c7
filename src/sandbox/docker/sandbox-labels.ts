import { ConfigError } from '../../errors.ts';
import { LABELS } from '../types.ts';

/**
 * What a sandgym-made image is, on the image itself: `fork` images are temporary (gc removes them with
 * their run), `snapshot` images belong to the user. Commits inherit the container's labels, so every
 * commit sets this key explicitly.
 */
export const IMAGE_KIND_LABEL = 'sandgym.image';
export type ImageKind = 'fork' | 'snapshot';

const RESERVED = new Set<string>([LABELS.run, LABELS.createdAt, LABELS.ttlMs, IMAGE_KIND_LABEL]);

/** The labels of a new sandbox: the caller's, then the owner run, creation time and TTL. */
export function sandboxLabels(
  owner: { runId: string; createdAtMs: number; ttlMs: number },
  user: Record<string, string> = {},
): Record<string, string> {
  for (const [key, value] of Object.entries(user)) {
    if (RESERVED.has(key)) {
      throw new ConfigError(`label "${key}" is set by sandgym itself; choose another key for your label`);
    }
    if (key === '' || typeof value !== 'string') {
      throw new ConfigError(`label ${JSON.stringify(key)} needs a non-empty key and a string value`);
    }
  }
  return {
    ...user,
    [LABELS.run]: owner.runId,
    [LABELS.createdAt]: String(owner.createdAtMs),
    [LABELS.ttlMs]: String(owner.ttlMs),
  };
}

/** The labels a commit writes on its image (merged over the container's, which it inherits). */
export function imageLabels(
  kind: ImageKind,
  owner?: { runId: string; createdAtMs: number; ttlMs: number },
): Record<string, string> {
  // A snapshot outlives its run, so its inherited ownership labels are blanked: gc must never take it.
  return {
    [IMAGE_KIND_LABEL]: kind,
    [LABELS.run]: owner?.runId ?? '',
    [LABELS.createdAt]: owner ? String(owner.createdAtMs) : '',
    [LABELS.ttlMs]: owner ? String(owner.ttlMs) : '',
  };
}

/** The user's labels of a sandbox (what a fork passes on), without sandgym's own. */
export function userLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([key]) => !RESERVED.has(key)));
}

/** The ownership labels in the shape `isOrphan` reads; missing or malformed values stay undefined. */
export function parseOwnerLabels(labels: Readonly<Record<string, string>> | undefined): {
  run?: string;
  createdAtMs?: number;
  ttlMs?: number;
} {
  const number = (s: string | undefined) => (s && /^\d+$/.test(s) ? Number(s) : undefined);
  const run = labels?.[LABELS.run] || undefined;
  const createdAtMs = number(labels?.[LABELS.createdAt]);
  const ttlMs = number(labels?.[LABELS.ttlMs]);
  return {
    ...(run !== undefined && { run }),
    ...(createdAtMs !== undefined && { createdAtMs }),
    ...(ttlMs !== undefined && { ttlMs }),
  };
}
