import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../config/index.ts';
import { seededOrder, sftLearningRate } from './phases.ts';

describe('SFT learning rate', () => {
  it('is constant, or decays along a half cosine from lr at the first step toward 0', () => {
    const cosine = loadConfig([], ['sft.lr=0.002']).sft;
    assert.equal(sftLearningRate(cosine, 1, 4), 0.002);
    // Steps 2..4 of 4: (1 + cos(π/4))/2, (1 + cos(π/2))/2, (1 + cos(3π/4))/2 of lr.
    for (const [step, f] of [
      [2, 0.853553],
      [3, 0.5],
      [4, 0.146447],
    ] as const) {
      assert.ok(Math.abs(sftLearningRate(cosine, step, 4) - 0.002 * f) < 1e-9, `step ${step}`);
    }
    const constant = loadConfig([], ['sft.lr_schedule=constant']).sft;
    assert.equal(sftLearningRate(constant, 3, 4), constant.lr);
  });
});

describe('seededOrder', () => {
  it('is a permutation that depends only on the seed', () => {
    const a = seededOrder(50, 7);
    assert.deepEqual(
      [...a].sort((x, y) => x - y),
      Array.from({ length: 50 }, (_, i) => i),
    );
    assert.deepEqual(seededOrder(50, 7), a);
    assert.notDeepEqual(seededOrder(50, 8), a);
  });
});
