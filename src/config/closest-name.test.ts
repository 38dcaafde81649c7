import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestName, didYouMean, editDistance } from './closest-name.ts';

describe('closestName', () => {
  it('measures edits', () => {
    assert.equal(editDistance('grpoo', 'grpo'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
  });

  it('suggests the nearest name only when it looks like a typo', () => {
    const valid = ['grpo', 'rloo', 'reinforce', 'reinforce_plus_plus'];
    assert.equal(closestName('grpoo', valid), 'grpo');
    assert.equal(closestName('GRPO', valid), 'grpo');
    assert.equal(closestName('reinforce_plus', valid), undefined, 'five edits away is not a typo');
    assert.equal(closestName('ppo', valid), undefined);
    assert.equal(didYouMean('nn', ['n', 'n_parallel']), '; did you mean "n"?');
    assert.equal(didYouMean('zzz', ['n']), '');
  });
});
