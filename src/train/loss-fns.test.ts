import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ParsedDatum } from './datum.ts';
import { evaluateLoss } from './loss-fns.ts';

const p = Float32Array.from([Math.log(0.5), Math.log(0.2), Math.log(0.9)]);
// Ratios r = exp(p − q): 0.5, 2, 1.
const q = Float32Array.from([Math.log(1), Math.log(0.1), Math.log(0.9)]);
const rl = (advantages: number[]): ParsedDatum => ({
  inputTokens_T: Int32Array.from([0, 0, 0]),
  targetTokens_T: Int32Array.from([0, 0, 0]),
  logprobs_T: q,
  advantages_T: Float32Array.from(advantages),
});
const close = (a: ArrayLike<number>, b: number[]) =>
  b.forEach((v, i) => {
    assert.ok(Math.abs(a[i]! - v) < 1e-6, `${i}: ${a[i]} vs ${v}`);
  });

test('cross_entropy is −w·p with weight 1 by default', () => {
  const d: ParsedDatum = { inputTokens_T: new Int32Array(3), targetTokens_T: new Int32Array(3) };
  close(evaluateLoss('cross_entropy', d, p).loss_T, [-p[0]!, -p[1]!, -p[2]!]);
  const w = evaluateLoss('cross_entropy', { ...d, weights_T: Float32Array.from([0, 2, 1]) }, p);
  close(w.loss_T, [0, -2 * p[1]!, -p[2]!]);
  close(w.dLogprob_T, [0, -2, -1]);
});

test('importance_sampling is −r·A with gradient −r·A', () => {
  const out = evaluateLoss('importance_sampling', rl([1, 1, -1]), p);
  close(out.loss_T, [-0.5, -2, 1]);
  close(out.dLogprob_T, [-0.5, -2, 1]);
});

test('ppo clips ratios to [0.8, 1.2] by default and passes no gradient where the clipped term wins', () => {
  const pos = evaluateLoss('ppo', rl([1, 1, 1]), p);
  // A > 0: min(r, clip(r)) → 0.5 (unclipped, gradient), 1.2 (clipped, none), 1 (gradient).
  close(pos.loss_T, [-0.5, -1.2, -1]);
  close(pos.dLogprob_T, [-0.5, 0, -1]);
  const neg = evaluateLoss('ppo', rl([-1, -1, -1]), p);
  // A < 0: min(−r, −clip(r)) → −0.8 (clipped, none), −2 (unclipped, gradient), −1.
  close(neg.loss_T, [0.8, 2, 1]);
  close(neg.dLogprob_T, [0, 2, 1]);
  const wide = evaluateLoss('ppo', rl([1, 1, 1]), p, { clip_low_threshold: 0.1, clip_high_threshold: 3 });
  close(wide.dLogprob_T, [-0.5, -2, -1]);
});

test('cispo weights −p by the clipped ratio times A (defaults 0 and 4), with gradient −clip(r)·A', () => {
  const out = evaluateLoss('cispo', rl([1, 2, 1]), p, { clip_high_threshold: 1.5 });
  close(out.loss_T, [-0.5 * p[0]!, -1.5 * 2 * p[1]!, -p[2]!]);
  close(out.dLogprob_T, [-0.5, -3, -1]);
  close(evaluateLoss('cispo', rl([1, 1, 1]), p).dLogprob_T, [-0.5, -2, -1]);
});

test('ratio metrics count only trained tokens: a zero advantage (prompt, observation) is left out', () => {
  // Token 0 stands for a prompt position: sampler logprob 0, advantage 0, so r = 0.5 would drag the mean.
  const out = evaluateLoss('ppo', rl([0, 1, 1]), p);
  assert.equal(out.trainedTokens, 2);
  assert.equal(out.clippedTokens, 1);
  assert.ok(Math.abs(out.ratioSum - 3) < 1e-6, `${out.ratioSum}`);
  close(out.loss_T, [0, -1.2, -1]);
  close(out.dLogprob_T, [0, 0, -1]);
  const ce = evaluateLoss('cross_entropy', { ...rl([0, 0, 0]), weights_T: Float32Array.from([0, 1, 1]) }, p);
  assert.equal(ce.trainedTokens, 2);
});

test('RL losses refuse missing inputs and inverted thresholds', () => {
  const d: ParsedDatum = { inputTokens_T: new Int32Array(3), targetTokens_T: new Int32Array(3) };
  assert.throws(() => evaluateLoss('ppo', d, p), /needs loss_fn_inputs.logprobs and advantages/);
  assert.throws(
    () => evaluateLoss('ppo', rl([1, 1, 1]), p, { clip_low_threshold: 1.3, clip_high_threshold: 1.2 }),
    /clip.low is 1.3; it must be in \[0, 1\]/,
  );
});
