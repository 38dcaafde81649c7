import { ConfigError } from '../errors.ts';

/** A ragged batch: one row per sequence, one column per token (`_B_T`). */
export type Ragged = readonly (readonly number[])[];

/**
 * Throw unless `other` has exactly the row lengths of `reference`. Shape mismatches between logprobs,
 * masks and advantages are silent corruption in tensor code; here they fail loudly and say where.
 */
export function assertSameShape(
  what: string,
  referenceName: string,
  reference: Ragged,
  otherName: string,
  other: Ragged,
): void {
  if (other.length !== reference.length) {
    throw new ConfigError(
      `${what}: ${otherName} has ${other.length} sequences but ${referenceName} has ${reference.length}; ` +
        'pass one row per sequence in both',
    );
  }
  for (let b = 0; b < reference.length; b++) {
    const want = reference[b]!.length;
    const got = other[b]!.length;
    if (got !== want) {
      throw new ConfigError(
        `${what}: ${otherName} row ${b} has ${got} tokens but ${referenceName} row ${b} has ${want}; ` +
          'align both to the same response tokens',
      );
    }
  }
}

/** Throw unless every entry is 0 or 1: masks select tokens, they are not weights. */
export function assertBinaryMask(what: string, name: string, mask_B_T: Ragged): void {
  for (let b = 0; b < mask_B_T.length; b++) {
    const row = mask_B_T[b]!;
    for (let t = 0; t < row.length; t++) {
      const m = row[t]!;
      if (m !== 0 && m !== 1) {
        throw new ConfigError(`${what}: ${name}[${b}][${t}] is ${m}; a mask holds only 0 and 1`);
      }
    }
  }
}

/** Throw unless `value` is a finite number satisfying `ok`, naming the parameter and the rule. */
export function assertParam(what: string, name: string, value: number, ok: boolean, rule: string): void {
  if (!Number.isFinite(value) || !ok) {
    throw new ConfigError(`${what}: ${name} is ${value}; it must be ${rule}`);
  }
}

/** A new ragged batch of the same shape, filled by `f(b, t)`. */
export function mapRagged(shape: Ragged, f: (b: number, t: number) => number): number[][] {
  return shape.map((row, b) => row.map((_, t) => f(b, t)));
}
