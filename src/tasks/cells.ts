import { z } from 'zod';

/**
 * Schemas for single cells as the published files hold them. The Parquet files of SWE-bench and R2E-Gym
 * store lists and objects as JSON strings; other copies store real lists; JSONL has either. Missing text
 * columns are null in Parquet, so optional text reads as ''.
 */

function parseJsonString(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    // Left as the string: the schema then reports the expected type.
    return value;
  }
}

/** A list of strings, or a JSON string holding one. */
export const stringList = z.preprocess(
  parseJsonString,
  z.array(z.string(), { error: 'expected a list of strings, or a JSON string holding one' }),
);

/** An object, or a JSON string holding one. */
export function jsonObject<T extends z.ZodType>(shape: T) {
  return z.preprocess(parseJsonString, shape);
}

/** Required text. */
export const requiredText = z.string({ error: 'expected a string' }).min(1, { error: 'must not be empty' });

/** Text that may be absent or null. */
export const optionalText = z
  .string({ error: 'expected a string' })
  .nullish()
  .transform((v) => v ?? '');

/** A time as an ISO string: Parquet TIMESTAMP columns read as Dates, others as strings or epoch numbers. */
export const timestampText = z
  .union([z.string(), z.date(), z.number()], { error: 'expected a date string or a timestamp' })
  .nullish()
  .transform((v) => {
    if (v === null || v === undefined) return '';
    return typeof v === 'string' ? v : new Date(v).toISOString();
  });
