import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isEngineInputError } from '../errors.ts';
import { sequenceDatum } from '../reference/test-support.ts';
import { parsePassData } from './parse-pass-data.ts';

test('a batch is checked as the engine checks it: loss, vocabulary, context, and the inputs RL losses need', () => {
  const datum = sequenceDatum([1, 2, 3]);
  assert.equal(parsePassData([datum], 'cross_entropy', 10, 0).length, 1, 'context 0: unknown, not checked');
  const refuse = (fn: () => unknown, message: RegExp) =>
    assert.throws(fn, (e) => isEngineInputError(e) && message.test(e.message));
  refuse(
    () => parsePassData([datum], 'dpo' as never, 10, 8),
    /unknown loss_fn "dpo"; use one of cross_entropy, importance_sampling, ppo, cispo/,
  );
  refuse(() => parsePassData([datum], 'cross_entropy', 3, 8), /token 3 is outside the vocabulary \[0, 3\)/);
  refuse(() => parsePassData([datum], 'cross_entropy', 10, 1), /exceed the model's context of 1/);
  refuse(
    () => parsePassData([datum], 'ppo', 10, 8),
    /datum 0: loss_fn "ppo" needs loss_fn_inputs.logprobs and advantages/,
  );
  assert.equal(
    parsePassData([sequenceDatum([1, 2, 3], { logprobs: [0, 0], advantages: [1, 1] })], 'ppo', 10, 8).length,
    1,
  );
});
