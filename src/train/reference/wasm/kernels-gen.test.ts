import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sourceSha256 } from './build-kernels.ts';
import { KERNELS_SOURCE_SHA256 } from './kernels.wasm.gen.ts';

test('kernels.wasm.gen.ts was built from the current kernels.as (rebuild: see build-kernels.ts)', async () => {
  assert.equal(KERNELS_SOURCE_SHA256, await sourceSha256());
});
