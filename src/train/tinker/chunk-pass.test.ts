import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sequenceDatum } from '../reference/test-support.ts';
import { chunkData, mergePassOutputs } from './chunk-pass.ts';

test('a batch is split by datum count and by size, in order, a too-large datum alone', () => {
  const data = Array.from({ length: 5 }, (_, i) => sequenceDatum([1, 2, 3, 4 + i]));
  assert.deepEqual(
    chunkData(data, { maxDatums: 2, maxBytes: 1e9 }).map((c) => c.length),
    [2, 2, 1],
  );
  assert.deepEqual(chunkData(data, { maxDatums: 1024, maxBytes: 1e9 }), [data]);
  const size = JSON.stringify(data[0]).length;
  assert.deepEqual(
    chunkData(data, { maxDatums: 1024, maxBytes: size * 2 + 1 }).map((c) => c.length),
    [2, 2, 1],
  );
  const big = sequenceDatum(Array.from({ length: 500 }, (_, i) => i % 200));
  assert.deepEqual(
    chunkData([data[0]!, big, data[1]!], { maxDatums: 1024, maxBytes: size * 3 }).map((c) => c.length),
    [1, 1, 1],
  );
  assert.equal(
    chunkData(data, { maxDatums: 2, maxBytes: 1e9 })
      .flat()
      .every((d, i) => d === data[i]),
    true,
  );
});

test('chunk results merge: outputs in order, metrics by their reduction', () => {
  const out = (v: number) => ({ logprobs: { data: [v], dtype: 'float32' } });
  const merged = mergePassOutputs([
    {
      wire: {
        loss_fn_output_type: 'scalar',
        loss_fn_outputs: [out(1), out(2)],
        metrics: { 'loss:sum': 3, 'ratio:mean': 1, 'grad:max': 2 },
      },
      data: 2,
    },
    {
      wire: {
        loss_fn_output_type: 'scalar',
        loss_fn_outputs: [out(3)],
        metrics: { 'loss:sum': 4, 'ratio:mean': 4, 'grad:max': 1 },
      },
      data: 1,
    },
  ]);
  assert.deepEqual(merged.loss_fn_outputs, [out(1), out(2), out(3)]);
  assert.deepEqual(merged.metrics, { 'loss:sum': 7, 'ratio:mean': 2, 'grad:max': 2 });
});
