import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelConfig } from './model-config.ts';
import { type ParamLayout, paramLayout, type TensorSlot } from './param-layout.ts';
import { ReferenceEngine } from './reference-engine.ts';
import { Rng } from './rng.ts';
import { sequenceDatum } from './test-support.ts';

// Wide enough for the SIMD paths (d = 24: 8-column blocks and a 4-column tail; 3 heads of 8).
const MODEL: ModelConfig = { vocab_size: 20, n_ctx: 24, d_model: 24, n_layer: 2, n_head: 3 };

type Mat = number[][];

/** The documented architecture written plainly, in double precision, one matrix op at a time. */
function naiveLogprobs(
  c: ModelConfig,
  layout: ParamLayout,
  p: Float32Array,
  tokens: number[],
  targets: number[],
) {
  const d = c.d_model;
  const dh = d / c.n_head;
  const W = (s: TensorSlot): Mat =>
    Array.from({ length: s.shape[0]! }, (_, i) =>
      Array.from(p.subarray(s.offset + i * s.shape[1]!, s.offset + (i + 1) * s.shape[1]!)),
    );
  const v = (s: TensorSlot) => Array.from(p.subarray(s.offset, s.offset + s.size));
  const matmul = (x: Mat, w: Mat, b?: number[]) =>
    x.map((row) => w[0]!.map((_, j) => row.reduce((s, xi, k) => s + xi * w[k]![j]!, b ? b[j]! : 0)));
  const ln = (x: Mat, g: number[], b: number[]) =>
    x.map((row) => {
      const mu = row.reduce((a, z) => a + z, 0) / d;
      const vr = row.reduce((a, z) => a + (z - mu) ** 2, 0) / d;
      return row.map((z, j) => ((z - mu) / Math.sqrt(vr + 1e-5)) * g[j]! + b[j]!);
    });
  const gelu = (z: number) => 0.5 * z * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (z + 0.044715 * z ** 3)));
  const wte = W(layout.wte);
  const wpe = W(layout.wpe);
  let x: Mat = tokens.map((t, i) => wte[t]!.map((e, j) => e + wpe[i]![j]!));
  for (const L of layout.layers) {
    const qkv = matmul(ln(x, v(L.ln1_g), v(L.ln1_b)), W(L.w_qkv), v(L.b_qkv));
    const att: Mat = x.map(() => new Array(d).fill(0));
    for (let h = 0; h < c.n_head; h++) {
      const col = (row: number[], part: number) => row.slice(part * d + h * dh, part * d + (h + 1) * dh);
      for (let i = 0; i < tokens.length; i++) {
        const scores = qkv
          .slice(0, i + 1)
          .map((r) => col(qkv[i]!, 0).reduce((s, q, k) => s + q * col(r, 1)[k]!, 0) / Math.sqrt(dh));
        const mx = Math.max(...scores);
        const e = scores.map((s) => Math.exp(s - mx));
        const z = e.reduce((a, b) => a + b, 0);
        for (let j = 0; j <= i; j++) {
          const value = col(qkv[j]!, 2);
          for (let k = 0; k < dh; k++) att[i]![h * dh + k]! += (e[j]! / z) * value[k]!;
        }
      }
    }
    const proj = matmul(att, W(L.w_o), v(L.b_o));
    x = x.map((row, i) => row.map((z, j) => z + proj[i]![j]!));
    const u = matmul(ln(x, v(L.ln2_g), v(L.ln2_b)), W(L.w_fc), v(L.b_fc)).map((r) => r.map(gelu));
    const mlp = matmul(u, W(L.w_proj), v(L.b_proj));
    x = x.map((row, i) => row.map((z, j) => z + mlp[i]![j]!));
  }
  const hf = ln(x, v(layout.lnf_g), v(layout.lnf_b));
  return hf.map((row, i) => {
    const logits = wte.map((e) => e.reduce((s, ej, j) => s + ej * row[j]!, 0));
    const mx = Math.max(...logits);
    const lse = mx + Math.log(logits.reduce((s, l) => s + Math.exp(l - mx), 0));
    return logits[targets[i]!]! - lse;
  });
}

test('forward logprobs equal a plain double-precision implementation of the architecture', async () => {
  const engine = await ReferenceEngine.create({ model: MODEL, seed: 4, threads: 1 });
  const rng = new Rng(2);
  // Larger than initial weights, so attention is far from uniform and every part matters.
  engine.setParameterVector(engine.parameterVector().map((w) => w + 0.2 * rng.normal()));
  const layout = paramLayout(MODEL);
  for (const T of [1, 6, 9, 23]) {
    const seq = Array.from({ length: T + 1 }, () => Math.floor(rng.uniform() * MODEL.vocab_size));
    const out = await engine.forward([sequenceDatum(seq)], 'cross_entropy');
    const expected = naiveLogprobs(MODEL, layout, engine.parameterVector(), seq.slice(0, -1), seq.slice(1));
    out.loss_fn_outputs[0]!.logprobs.data.forEach((lp, i) => {
      assert.ok(Math.abs(lp - expected[i]!) < 1e-4, `T=${T} position ${i}: ${lp} vs ${expected[i]}`);
    });
  }
});

test('attention is causal: changing a later token leaves earlier logprobs unchanged', async () => {
  const engine = await ReferenceEngine.create({ model: MODEL, seed: 4, threads: 1 });
  const a = [1, 2, 3, 4, 5, 6, 7, 8, 9];
  const b = [...a.slice(0, 6), 19, 18, 17];
  const [la, lb] = (await engine.forward([sequenceDatum(a), sequenceDatum(b)], 'cross_entropy'))
    .loss_fn_outputs;
  assert.deepEqual(la!.logprobs.data.slice(0, 5), lb!.logprobs.data.slice(0, 5));
  assert.notDeepEqual(la!.logprobs.data.slice(6), lb!.logprobs.data.slice(6));
});

test('KV-cache decoding agrees with the full forward pass at every length (temperature 1 logprobs)', async () => {
  // 40 dimensions in 2 heads of 20: the cached attention's 16-wide pass and its 4-wide tail.
  const model: ModelConfig = { vocab_size: 20, n_ctx: 24, d_model: 40, n_layer: 2, n_head: 2 };
  const engine = await ReferenceEngine.create({ model, seed: 5, threads: 1 });
  const rng = new Rng(6);
  engine.setParameterVector(engine.parameterVector().map((w) => w + 0.2 * rng.normal()));
  for (const promptLength of [1, 3, 6]) {
    const prompt = Array.from({ length: promptLength }, (_, i) => (i * 7) % 20);
    const { sequences } = await engine.sample(prompt, { max_tokens: 24, seed: promptLength }, 3);
    for (const s of sequences) {
      assert.equal(s.tokens.length, 24 - promptLength, 'runs until the context is full');
      assert.equal(s.stop_reason, 'length');
      const out = await engine.forward([sequenceDatum([...prompt, ...s.tokens])], 'cross_entropy');
      const forward = out.loss_fn_outputs[0]!.logprobs.data.slice(promptLength - 1);
      s.logprobs.forEach((lp, i) => {
        assert.ok(
          Math.abs(lp - forward[i]!) < 1e-4,
          `prompt ${promptLength}, token ${i}: ${lp} vs ${forward[i]}`,
        );
      });
    }
  }
});
