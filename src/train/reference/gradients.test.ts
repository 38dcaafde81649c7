import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Datum, LossFnConfig, LossFnType } from '../engine.ts';
import { ReferenceEngine } from './reference-engine.ts';
import { Rng } from './rng.ts';
import { MICRO_MODEL, sequenceDatum } from './test-support.ts';

// Finite differences in float32 are noisy, so the weights are made large enough that gradients are O(1)
// and every coordinate is checked with a central difference at eps = 1e-2 against a mixed tolerance
// (a 1% error in any one gradient tensor fails it).
const EPS = 1e-2;

async function microEngine(): Promise<ReferenceEngine> {
  const engine = await ReferenceEngine.create({ model: MICRO_MODEL, seed: 7, threads: 1 });
  const rng = new Rng(11);
  engine.setParameterVector(engine.parameterVector().map((v) => v + 0.3 * rng.normal()));
  return engine;
}

/** The batch: two sequences of different lengths (neither a multiple of 4, to reach the kernels' tails). */
function batch(extra: (T: number, i: number) => Parameters<typeof sequenceDatum>[1]): Datum[] {
  const seqs = [
    [1, 5, 3, 7, 2, 9, 4, 11],
    [3, 3, 0, 8, 6, 10],
  ];
  return seqs.map((s, i) => sequenceDatum(s, extra(s.length - 1, i)));
}

async function checkGradient(
  engine: ReferenceEngine,
  data: Datum[],
  lossFn: LossFnType,
  config?: LossFnConfig,
) {
  await engine.forwardBackward(data, lossFn, config);
  const grad = engine.gradientVector();
  const theta = engine.parameterVector();
  const loss = async (p: Float32Array) => {
    engine.setParameterVector(p);
    return (await engine.forward(data, lossFn, config)).metrics['loss:sum']!;
  };
  let checked = 0;
  for (let i = 0; i < theta.length; i++) {
    const plus = theta.slice();
    plus[i] = plus[i]! + EPS;
    const minus = theta.slice();
    minus[i] = minus[i]! - EPS;
    const fd = ((await loss(plus)) - (await loss(minus))) / (2 * EPS);
    assert.ok(
      Math.abs(fd - grad[i]!) <= 1e-3 + 5e-3 * Math.abs(fd),
      `${lossFn}: param ${i}: fd ${fd} vs grad ${grad[i]}`,
    );
    if (Math.abs(fd) > 1e-2) checked++;
  }
  engine.setParameterVector(theta);
  assert.ok(
    checked > theta.length / 2,
    `only ${checked} of ${theta.length} coordinates had a visible gradient`,
  );
}

/** Sampler logprobs near the model's own, so ratios r = exp(p − q) spread around 1. */
async function behaviourLogprobs(
  engine: ReferenceEngine,
  data: Datum[],
  spread: number,
): Promise<number[][]> {
  const out = await engine.forward(data, 'cross_entropy');
  const rng = new Rng(5);
  return out.loss_fn_outputs.map((o) => o.logprobs.data.map((p) => p + spread * (rng.uniform() - 0.5)));
}

function rlBatch(q: number[][]): Datum[] {
  const rng = new Rng(9);
  return batch((T, i) => ({
    logprobs: q[i]!,
    advantages: Array.from({ length: T }, () => 2 * rng.uniform() - 1),
  }));
}

test('cross_entropy gradient through the whole model matches finite differences', async () => {
  const engine = await microEngine();
  const rng = new Rng(1);
  await checkGradient(
    engine,
    batch((T) => ({ weights: Array.from({ length: T }, () => rng.uniform()) })),
    'cross_entropy',
  );
});

test('importance_sampling gradient matches finite differences', async () => {
  const engine = await microEngine();
  const q = await behaviourLogprobs(
    engine,
    batch(() => ({})),
    0.6,
  );
  await checkGradient(engine, rlBatch(q), 'importance_sampling');
});

test('ppo gradient matches finite differences, clipped tokens included', async () => {
  const engine = await microEngine();
  // Ratios in about [0.55, 1.8]: with thresholds 0.8/1.2 some tokens are clipped. None sits so close to
  // an edge that a step of eps crosses it; if one did, its finite difference would not match.
  const q = await behaviourLogprobs(
    engine,
    batch(() => ({})),
    1.2,
  );
  const config = { clip_low_threshold: 0.8, clip_high_threshold: 1.2 };
  const { metrics } = await engine.forward(rlBatch(q), 'ppo', config);
  assert.ok(
    metrics['clip_fraction:mean']! > 0.1 && metrics['clip_fraction:mean']! < 0.9,
    JSON.stringify(metrics),
  );
  assert.ok(metrics['ratio:mean']! > 0.5 && metrics['ratio:mean']! < 2, JSON.stringify(metrics));
  await checkGradient(engine, rlBatch(q), 'ppo', config);
});

test('cispo gradient equals cross_entropy weighted by the stopped, clipped ratio times the advantage', async () => {
  // CISPO's weight sg(clip(r))·A carries no gradient, so finite differences of its value do not give its
  // gradient; the gradient is that of −Σ w·p with w frozen, which cross_entropy (checked above) computes.
  const engine = await microEngine();
  const q = await behaviourLogprobs(
    engine,
    batch(() => ({})),
    2,
  );
  const data = rlBatch(q);
  const config = { clip_low_threshold: 0.9, clip_high_threshold: 1.3 };
  await engine.forwardBackward(data, 'cispo', config);
  const cispo = engine.gradientVector();
  const p = (await engine.forward(data, 'cross_entropy')).loss_fn_outputs.map((o) => o.logprobs.data);
  const weighted = data.map((d, i) =>
    sequenceDatum([d.model_input.chunks[0]!.tokens[0]!, ...d.loss_fn_inputs.target_tokens.data], {
      weights: p[i]!.map((pt, t) => {
        const r = Math.exp(pt - q[i]![t]!);
        return Math.min(Math.max(r, 0.9), 1.3) * d.loss_fn_inputs.advantages!.data[t]!;
      }),
    }),
  );
  const fresh = await microEngine();
  await fresh.forwardBackward(weighted, 'cross_entropy');
  const ce = fresh.gradientVector();
  let clipped = 0;
  p.forEach((ps, i) => {
    ps.forEach((pt, t) => {
      const r = Math.exp(pt - q[i]![t]!);
      if (r < 0.9 || r > 1.3) clipped++;
    });
  });
  assert.ok(clipped > 0, 'the batch should clip some ratios');
  for (let j = 0; j < ce.length; j++)
    assert.ok(Math.abs(cispo[j]! - ce[j]!) <= 1e-5 + 1e-4 * Math.abs(ce[j]!), `param ${j}`);
});
