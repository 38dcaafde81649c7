import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rng } from './rng.ts';
import { drawToken, resolveSampling } from './sampling.ts';

const logits = Float32Array.from([2, 1, 0, -1, 3, 1]);
const softmax = (xs: number[]) => {
  const z = xs.reduce((s, x) => s + Math.exp(x), 0);
  return xs.map((x) => Math.exp(x) / z);
};

/** Frequencies and the logprob reported for each token over many draws. */
function draws(params: Parameters<typeof resolveSampling>[0], n = 20000) {
  const rng = new Rng(1);
  const s = resolveSampling(params, logits.length);
  const count: number[] = new Array(logits.length).fill(0);
  const logprob = new Array<number | undefined>(logits.length).fill(undefined);
  for (let i = 0; i < n; i++) {
    const { token, logprob: lp } = drawToken(logits, s, rng);
    count[token] = count[token]! + 1;
    logprob[token] = lp;
  }
  return { freq: count.map((c) => c / n), logprob };
}

test('temperature 1 draws from the softmax and reports its logprobs', () => {
  const p = softmax(Array.from(logits));
  const { freq, logprob } = draws({ max_tokens: 1 });
  p.forEach((pi, v) => {
    assert.ok(Math.abs(freq[v]! - pi) < 0.015, `token ${v}: ${freq[v]} vs ${pi}`);
    assert.ok(Math.abs(logprob[v]! - Math.log(pi)) < 1e-6);
  });
});

test('temperature, top-k and top-p renormalize over the kept set', () => {
  // T = 0.5 doubles the logits; top_k 3 keeps tokens 4, 0 and (1 or 5: equal, the lower id wins) 1.
  const kept = softmax([6, 4, 2]);
  const { freq, logprob } = draws({ max_tokens: 1, temperature: 0.5, top_k: 3 });
  [4, 0, 1].forEach((v, i) => {
    assert.ok(Math.abs(logprob[v]! - Math.log(kept[i]!)) < 1e-6);
  });
  assert.equal(freq[5], 0);
  assert.equal(freq[2], 0);
  // top_p 0.8 at T = 1: p = [.. sorted 0.61 (4), 0.22 (0), 0.08 (1) ...]; 0.61 + 0.22 ≥ 0.8 keeps two.
  const nucleus = draws({ max_tokens: 1, top_p: 0.8 });
  const two = softmax([3, 2]);
  assert.ok(Math.abs(nucleus.logprob[4]! - Math.log(two[0]!)) < 1e-6);
  assert.ok(Math.abs(nucleus.logprob[0]! - Math.log(two[1]!)) < 1e-6);
  assert.equal(nucleus.freq.filter((f) => f > 0).length, 2);
});

test('temperature 0 is greedy with logprob 0', () => {
  const { freq, logprob } = draws({ max_tokens: 1, temperature: 0 }, 10);
  assert.equal(freq[4], 1);
  assert.equal(logprob[4], 0);
});

test('bad sampling params are refused with the field named', () => {
  assert.throws(() => resolveSampling({ max_tokens: 1, temperature: -1 }, 6), /temperature must be ≥ 0/);
  assert.throws(() => resolveSampling({ max_tokens: 1, top_p: 1.5 }, 6), /top_p must be in/);
  assert.throws(() => resolveSampling({ max_tokens: 1, top_k: 2.5 }, 6), /top_k must be an integer/);
});
