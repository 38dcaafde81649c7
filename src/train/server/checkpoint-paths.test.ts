import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkpointDir, formatTinkerPath, parseTinkerPath } from './checkpoint-paths.ts';

test('tinker:// paths round-trip and resolve under the weights dir', () => {
  const ref = { modelId: 'model_ab12', kind: 'weights' as const, name: 'step-10' };
  assert.equal(formatTinkerPath(ref), 'tinker://model_ab12/weights/step-10');
  assert.deepEqual(parseTinkerPath('tinker://model_ab12/weights/step-10', 'weights'), ref);
  assert.equal(checkpointDir('/w', ref), '/w/model_ab12/weights/step-10');
  assert.deepEqual(parseTinkerPath('tinker://model_ab12/policy', 'sampler_weights'), {
    modelId: 'model_ab12',
    kind: 'sampler_weights',
    name: 'policy',
  });
});

test('anything else is a 400 that shows the expected form; no path escapes the weights dir', () => {
  for (const bad of [
    'tinker://m/weights/../../etc',
    'tinker://../weights/x',
    'file:///tmp/x',
    'tinker://m/weights/a/b',
    'tinker://m/x',
  ]) {
    assert.throws(
      () => parseTinkerPath(bad, 'weights'),
      /expected tinker:\/\/<model_id>\/weights\/<name>/,
      bad,
    );
  }
  assert.throws(
    () => parseTinkerPath('tinker://m/sampler_weights/x', 'weights'),
    /holds sampler weights; this request needs/,
  );
});
