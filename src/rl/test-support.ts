import assert from 'node:assert/strict';

/**
 * Helpers for the rl/ unit tests only: a seeded generator so random cases are reproducible, closeness
 * asserts at the 1e-6 bar the module promises, and a central finite difference for gradient checks.
 */

/** mulberry32: a tiny seeded PRNG; the same seed always yields the same cases. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export function assertClose(actual: number, expected: number, tolerance = 1e-6, label = ''): void {
  const ok = Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected));
  assert.ok(ok, `${label} expected ${expected}, got ${actual} (tolerance ${tolerance})`);
}

export function assertAllClose(
  actual: readonly (readonly number[])[] | readonly number[],
  expected: readonly (readonly number[])[] | readonly number[],
  tolerance = 1e-6,
): void {
  const a = (actual as unknown[]).flat() as number[];
  const e = (expected as unknown[]).flat() as number[];
  assert.equal(a.length, e.length, 'length');
  assert.deepEqual(
    (actual as unknown[]).map((r) => (Array.isArray(r) ? r.length : 1)),
    (expected as unknown[]).map((r) => (Array.isArray(r) ? r.length : 1)),
    'row lengths',
  );
  for (let i = 0; i < a.length; i++) assertClose(a[i]!, e[i]!, tolerance, `[${i}]`);
}

/** d f / d x at x by central difference (error O(h²)). */
export function finiteDifference(f: (x: number) => number, x: number, h = 1e-6): number {
  return (f(x + h) - f(x - h)) / (2 * h);
}
