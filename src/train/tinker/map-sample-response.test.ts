import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapSampleResponse } from './map-sample-response.ts';

test('sequences map one to one; extra fields (prompt_logprobs) are dropped', () => {
  const wire = {
    sequences: [
      { stop_reason: 'stop', tokens: [1, 258], logprobs: [-0.1, -0.2] },
      { stop_reason: 'length', tokens: [3], logprobs: [-1] },
    ],
    prompt_logprobs: null,
  };
  assert.deepEqual(mapSampleResponse(wire, 2), {
    type: 'sample',
    sequences: [
      { stop_reason: 'stop', tokens: [1, 258], logprobs: [-0.1, -0.2] },
      { stop_reason: 'length', tokens: [3], logprobs: [-1] },
    ],
  });
});

test('a wrong count, stop reason, or missing logprobs is refused, saying which', () => {
  const seq = { stop_reason: 'stop', tokens: [1], logprobs: [-1] };
  assert.throws(() => mapSampleResponse({ sequences: [seq] }, 2), /1 sequences for num_samples=2/);
  assert.throws(
    () => mapSampleResponse({ sequences: [{ ...seq, stop_reason: 'eos' }] }, 1),
    /stop_reason "eos"/,
  );
  assert.throws(
    () => mapSampleResponse({ sequences: [{ ...seq, logprobs: null }] }, 1),
    /one logprob per token/,
  );
});
