import type { AdamParams } from '../engine.ts';

/** The part of a FastAPI server's `/openapi.json` that says which fields a request model takes. */
export interface OpenApiDocument {
  components?: { schemas?: Record<string, { properties?: Record<string, unknown> }> };
}

const ADAM_FIELDS: (keyof AdamParams)[] = [
  'learning_rate',
  'beta1',
  'beta2',
  'eps',
  'weight_decay',
  'grad_clip_norm',
];

/**
 * The optimizer settings a server drops without a word: those its published AdamParams model lacks
 * (SkyRL's has no `grad_clip_norm`; pydantic ignores unknown fields). Nothing when the server publishes
 * no schema (hosted Tinker): then it is taken to honour the whole protocol.
 */
export function ignoredAdamFields(doc: OpenApiDocument | undefined): (keyof AdamParams)[] {
  const properties = doc?.components?.schemas?.AdamParams?.properties;
  if (!properties) return [];
  return ADAM_FIELDS.filter((f) => !Object.hasOwn(properties, f));
}
