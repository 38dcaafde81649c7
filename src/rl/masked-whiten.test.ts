import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskedWhiten } from './masked-whiten.ts';
import { assertAllClose, assertClose, seededRandom } from './test-support.ts';

test('maskedWhiten matches hand arithmetic and ignores masked values in the statistics', () => {
  // selected values 1, 2, 3 (the 100 is masked): μ = 6/(3+1e-8) ≈ 2, unbiased σ² = (1+0+1)/2 = 1
  // → x̂ = (x − 2)/√(1 + 1e-8): 1 → −1, 2 → 0, 3 → 1, masked 100 → 98 (callers mask it).
  const out = maskedWhiten(
    [
      [1, 2],
      [3, 100],
    ],
    [
      [1, 1],
      [1, 0],
    ],
  );
  assertAllClose(out, [
    [-1, 0],
    [1, 98],
  ]);
});

test('maskedWhiten output has masked mean 0 and unbiased variance 1 on random batches', () => {
  const rand = seededRandom(7);
  for (let trial = 0; trial < 20; trial++) {
    const values = Array.from({ length: 4 }, () => Array.from({ length: 1 + Math.floor(rand() * 6) }, rand));
    const mask = values.map((row) => row.map(() => (rand() < 0.7 ? 1 : 0)));
    mask[0]![0] = 1;
    mask[1]![0] = 1;
    const out = maskedWhiten(values, mask);
    const picked = out.flatMap((row, b) => row.filter((_, t) => mask[b]![t] === 1));
    const mean = picked.reduce((s, x) => s + x, 0) / picked.length;
    const variance = picked.reduce((s, x) => s + (x - mean) ** 2, 0) / (picked.length - 1);
    assertClose(mean, 0, 1e-6);
    // the +1e-8 under the root shrinks the variance by a relative ~1e-8/σ²; random σ² ≥ ~1e-3 here
    assertClose(variance, 1, 1e-4);
  }
});

test('maskedWhiten of fewer than two selected tokens is all zeros', () => {
  assert.deepEqual(maskedWhiten([[5, 6]], [[0, 1]]), [[0, 0]]);
  assert.deepEqual(maskedWhiten([[5], []], [[0], []]), [[0], []]);
});
