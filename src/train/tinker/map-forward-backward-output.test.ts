import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDatum } from '../datum.ts';
import { evaluateLoss } from '../loss-fns.ts';
import { sequenceDatum } from '../reference/test-support.ts';
import { mapForwardBackwardOutput } from './map-forward-backward-output.ts';
import { isTinkerApiError } from './tinker-api-error.ts';

const data = [
  sequenceDatum([1, 2, 3, 4], { logprobs: [-1, -1, -1], advantages: [0, 1, -2] }),
  sequenceDatum([5, 6], { logprobs: [-0.5], advantages: [2] }),
].map((d, i) => parseDatum(d, i, 10, 16));
const logprobs = [[-0.9, -1.2, -0.3], [-0.5]];
const f32 = (a: number[]) => ({ data: a, dtype: 'float32', shape: [a.length] });

test('hosted Tinker’s shape (logprobs and loss:sum only): elementwise losses and metrics are computed', () => {
  const out = mapForwardBackwardOutput(
    {
      loss_fn_output_type: 'TorchLossReturn',
      loss_fn_outputs: logprobs.map((l) => ({ logprobs: f32(l) })),
      metrics: { 'loss:sum': 42 },
    },
    data,
    'ppo',
    {},
    'forward_backward',
  );
  assert.equal(out.loss_fn_output_type, 'TorchLossReturn');
  out.loss_fn_outputs.forEach((o, i) => {
    const expected = evaluateLoss('ppo', data[i]!, Float32Array.from(logprobs[i]!)).loss_T;
    assert.deepEqual(o.elementwise_loss.data, Array.from(expected, Math.fround));
    assert.deepEqual(o.logprobs, f32(logprobs[i]!));
  });
  assert.equal(out.metrics['loss:sum'], 42, 'what the server said is kept');
  assert.equal(out.metrics['tokens:sum'], 4);
  assert.ok(out.metrics['ratio:mean']! > 0 && out.metrics['clip_fraction:mean']! >= 0);
});

test('SkyRL’s shape (elementwise_loss, no metrics): the losses are kept and summed', () => {
  const out = mapForwardBackwardOutput(
    {
      loss_fn_output_type: 'scalar',
      loss_fn_outputs: logprobs.map((l) => ({ logprobs: f32(l), elementwise_loss: f32(l.map((x) => -x)) })),
      metrics: {},
    },
    data,
    'cross_entropy',
    undefined,
    'forward',
  );
  assert.deepEqual(out.loss_fn_outputs[1]!.elementwise_loss.data, [0.5]);
  assert.ok(Math.abs(out.metrics['loss:sum']! - 2.9) < 1e-12);
  assert.deepEqual(Object.keys(out.metrics).sort(), ['loss:sum', 'tokens:sum']);
});

test('a result that does not fit the request is a malformed answer, saying how', () => {
  const tooFew = { loss_fn_output_type: 'x', loss_fn_outputs: [{ logprobs: f32([-1, -1, -1]) }] };
  assert.throws(
    () => mapForwardBackwardOutput(tooFew, data, 'cross_entropy', {}, 'forward'),
    /1 loss_fn_outputs for 2 data/,
  );
  const short = {
    loss_fn_output_type: 'x',
    loss_fn_outputs: [{ logprobs: f32([-1]) }, { logprobs: f32([-1]) }],
  };
  assert.throws(
    () => mapForwardBackwardOutput(short, data, 'cross_entropy', {}, 'forward'),
    (e) =>
      isTinkerApiError(e) &&
      e.kind === 'malformed-response' &&
      /datum 0 logprobs must be 3 numbers/.test(e.message),
  );
});
