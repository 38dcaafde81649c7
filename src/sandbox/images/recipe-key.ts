import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** The content key of a recipe: sha256 of its canonical JSON, in hex. */
export function recipeKey(recipe: unknown): string {
  return createHash('sha256').update(canonicalJson(recipe)).digest('hex');
}
