import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapSettled } from './map-settled.ts';

test('keeps input order, runs every item despite failures, and respects the limit', async () => {
  let running = 0;
  let peak = 0;
  const results = await mapSettled([30, 10, 20, 0], 2, async (ms, i) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((resolve) => setTimeout(resolve, ms));
    running--;
    if (i === 1) throw new Error('second failed');
    return ms * 2;
  });
  assert.equal(peak, 2);
  assert.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
    [60, 'second failed', 40, 0],
  );
});

test('an empty list gives an empty result', async () => {
  assert.deepEqual(await mapSettled([], 4, async () => 1), []);
});
