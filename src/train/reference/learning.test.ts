import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Datum } from '../engine.ts';
import { ReferenceEngine } from './reference-engine.ts';
import { SMALL_BYTE_MODEL, sequenceDatum } from './test-support.ts';

const PAIRS: [string, string][] = [
  ['<|im_start|>user\nred<|im_end|>\n<|im_start|>assistant\n', 'apple<|im_end|>'],
  ['<|im_start|>user\nyellow<|im_end|>\n<|im_start|>assistant\n', 'banana<|im_end|>'],
  ['<|im_start|>user\ngreen<|im_end|>\n<|im_start|>assistant\n', 'kiwi<|im_end|>'],
];

test('SFT drives the loss down and greedy sampling then answers every prompt', async () => {
  const engine = await ReferenceEngine.create({ model: SMALL_BYTE_MODEL, seed: 1, threads: 1 });
  const tok = engine.getTokenizer();
  // Only the answer is trained: weight 0 on the prompt's targets, 1 on the answer's.
  const data: Datum[] = PAIRS.map(([prompt, answer]) => {
    const p = tok.encode(prompt);
    const a = tok.encode(answer);
    const weights = [...p.slice(1).map(() => 0), ...a.map(() => 1)];
    return sequenceDatum([...p, ...a], { weights });
  });
  let first = 0;
  let last = 0;
  for (let step = 0; step < 200; step++) {
    const out = await engine.forwardBackward(data, 'cross_entropy');
    await engine.optimStep({ learning_rate: 1e-2 });
    if (step === 0) first = out.metrics['loss:sum']!;
    last = out.metrics['loss:sum']!;
  }
  assert.ok(last < first / 20, `loss went from ${first} to ${last}`);
  for (const [prompt, answer] of PAIRS) {
    const { sequences } = await engine.sample(
      tok.encode(prompt),
      { max_tokens: 16, temperature: 0, stop: ['<|im_end|>'] },
      1,
    );
    assert.equal(tok.decode(sequences[0]!.tokens), answer);
  }
});

/** Exact expected reward: the probability that the first sampled token is a digit. */
async function digitProbability(engine: ReferenceEngine, prompt: number[]): Promise<number> {
  const digits = Array.from('0123456789', (ch) => ch.charCodeAt(0));
  const out = await engine.forward(
    digits.map((d) => sequenceDatum([...prompt, d])),
    'cross_entropy',
  );
  return out.loss_fn_outputs.reduce((s, o) => s + Math.exp(o.logprobs.data.at(-1)!), 0);
}

test('a few importance-sampling RL steps on sampled outputs raise the mean reward', async () => {
  const engine = await ReferenceEngine.create({ model: SMALL_BYTE_MODEL, seed: 2, threads: 1 });
  const prompt = engine.getTokenizer().encode('digit: ');
  const before = await digitProbability(engine, prompt);
  for (let step = 0; step < 8; step++) {
    const { sequences } = await engine.sample(prompt, { max_tokens: 1, seed: step }, 64);
    const rewards_G = sequences.map((s) => (s.tokens[0]! >= 48 && s.tokens[0]! <= 57 ? 1 : 0));
    const mean = rewards_G.reduce((a: number, b) => a + b, 0) / rewards_G.length;
    // Advantage = reward − group mean (Tinker cookbook's default); the prompt's targets get advantage 0.
    const data = sequences.map((s, i) =>
      sequenceDatum([...prompt, ...s.tokens], {
        logprobs: [...prompt.slice(1).map(() => 0), ...s.logprobs],
        advantages: [...prompt.slice(1).map(() => 0), rewards_G[i]! - mean],
      }),
    );
    await engine.forwardBackward(data, 'importance_sampling');
    await engine.optimStep({ learning_rate: 2e-2 });
  }
  const after = await digitProbability(engine, prompt);
  assert.ok(after > 3 * before && after > 0.3, `digit probability went from ${before} to ${after}`);
});
