import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configSchema } from '../../config/index.ts';
import { MODEL_PRESETS, modelConfigFromSection, parameterCount } from './model-config.ts';
import { paramLayout } from './param-layout.ts';

test('the config defaults name the tiny preset, and the parameter count matches the layout', () => {
  const section = configSchema.parse({}).engine.reference;
  assert.deepEqual(modelConfigFromSection(section), MODEL_PRESETS.tiny);
  for (const c of Object.values(MODEL_PRESETS)) assert.equal(parameterCount(c), paramLayout(c).size);
  assert.equal(parameterCount(MODEL_PRESETS.tiny), 561152);
});

test('shapes the SIMD kernels cannot run are refused, naming the key', () => {
  const section = configSchema.parse({}).engine.reference;
  assert.throws(
    () => modelConfigFromSection({ ...section, n_heads: 3 }),
    /d_model \(128\) must split into n_head \(3\)/,
  );
  assert.throws(
    () => modelConfigFromSection({ ...section, d_model: 120, n_heads: 4 }),
    /heads of a multiple of 4/,
  );
  assert.throws(
    () => modelConfigFromSection({ ...section, context: 0 }),
    /model.n_ctx must be a positive integer/,
  );
});
