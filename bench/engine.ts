/**
 * npm run bench:engine — training and sampling throughput of the reference engine (AssemblyScript SIMD
 * kernels) against the baseline it replaced: the same transformer in TensorFlow.js on its wasm backend
 * (the only TF.js backend that is fast and installs here; a devDependency used by nothing but this file).
 *
 * Same model both ways: 2 layers, d_model 128, 4 heads, byte vocabulary (260), context 128, tied head;
 * one train step = forward + backward + Adam over a batch of 16 × 128 tokens. Prints medians and the
 * ratio; the last line is one line of JSON. Timings are only comparable within one run.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import type { Datum } from '../src/train/index.ts';
import type { ModelConfig } from '../src/train/reference/index.ts';
import { ReferenceEngine } from '../src/train/reference/index.ts';

const MODEL: ModelConfig = { vocab_size: 260, n_ctx: 128, d_model: 128, n_layer: 2, n_head: 4 };
const BATCH = 16;
const SEQ = 128;
const SAMPLES = 8;
const SAMPLE_TOKENS = 64;
/** Fewer for the baseline: without a KV cache each token costs a whole forward pass. */
const BASELINE_SAMPLE_TOKENS = 16;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function randomSequences(n: number, len: number, seed: number): number[][] {
  let s = seed;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % 256;
  };
  return Array.from({ length: n }, () => Array.from({ length: len + 1 }, next));
}

async function timeIt(runs: number, fn: () => Promise<void>): Promise<number[]> {
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return ms;
}

async function benchReference(model: ModelConfig, batch: number, seq: number, runs: number, threads: number) {
  const engine = await ReferenceEngine.create({ model, seed: 1, threads });
  const data: Datum[] = randomSequences(batch, seq, 7).map((s) => ({
    model_input: { chunks: [{ type: 'encoded_text', tokens: s.slice(0, -1) }] },
    loss_fn_inputs: { target_tokens: { data: s.slice(1), dtype: 'int64' } },
  }));
  const step = await timeIt(runs, async () => {
    await engine.forwardBackward(data, 'cross_entropy');
    await engine.optimStep({ learning_rate: 1e-3 });
  });
  const sample = await timeIt(runs, async () => {
    await engine.sample([1, 2, 3, 4], { max_tokens: SAMPLE_TOKENS, seed: 1 }, SAMPLES);
  });
  await engine.close();
  return { stepMs: median(step), sampleMs: median(sample), tokens: batch * seq };
}

/** The same architecture in TF.js: embeddings through oneHot·matMul (tf.gather has no wasm gradient). */
function tfjsModel(c: ModelConfig) {
  const d = c.d_model;
  const init = (shape: number[], std: number) => tf.variable(tf.randomNormal(shape, 0, std, 'float32', 1));
  const ones = (n: number) => tf.variable(tf.ones([n]));
  const zeros = (n: number) => tf.variable(tf.zeros([n]));
  const layers = Array.from({ length: c.n_layer }, () => ({
    g1: ones(d),
    b1: zeros(d),
    wqkv: init([d, 3 * d], 0.02),
    bqkv: zeros(3 * d),
    wo: init([d, d], 0.02),
    bo: zeros(d),
    g2: ones(d),
    b2: zeros(d),
    wfc: init([d, 4 * d], 0.02),
    bfc: zeros(4 * d),
    wproj: init([4 * d, d], 0.02),
    bproj: zeros(d),
  }));
  const wte = init([c.vocab_size, d], 0.02);
  const wpe = init([c.n_ctx, d], 0.01);
  const gf = ones(d);
  const bf = zeros(d);
  const ln = (x: tf.Tensor2D, g: tf.Tensor, b: tf.Tensor) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), g), b) as tf.Tensor2D;
  };
  const H = c.n_head;
  const dh = d / H;
  /** Logits [B·T, V] for tokens [B, T]. */
  const forward = (tokens: tf.Tensor2D) => {
    const [B, T] = tokens.shape;
    const onehot = tf.cast(tf.oneHot(tf.reshape(tokens, [B * T]), c.vocab_size), 'float32') as tf.Tensor2D;
    const pos = tf.cast(
      tf.oneHot(tf.tile(tf.range(0, T, 1, 'int32'), [B]), c.n_ctx),
      'float32',
    ) as tf.Tensor2D;
    let x = tf.add(tf.matMul(onehot, wte), tf.matMul(pos, wpe)) as tf.Tensor2D;
    const mask = tf.mul(tf.sub(tf.linalg.bandPart(tf.ones([T, T]), -1, 0), 1), 1e9);
    for (const L of layers) {
      const qkv = tf.reshape(tf.add(tf.matMul(ln(x, L.g1, L.b1), L.wqkv), L.bqkv), [B, T, 3, H, dh]);
      const [q, k, v] = [0, 1, 2].map((i) =>
        tf.transpose(
          tf.reshape(tf.slice(qkv, [0, 0, i, 0, 0], [B, T, 1, H, dh]), [B, T, H, dh]),
          [0, 2, 1, 3],
        ),
      ) as [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D];
      const att = tf.softmax(tf.add(tf.div(tf.matMul(q, k, false, true), Math.sqrt(dh)), mask));
      const o = tf.reshape(tf.transpose(tf.matMul(att, v), [0, 2, 1, 3]), [B * T, d]) as tf.Tensor2D;
      x = tf.add(x, tf.add(tf.matMul(o, L.wo), L.bo)) as tf.Tensor2D;
      const u = tf.add(tf.matMul(ln(x, L.g2, L.b2), L.wfc), L.bfc);
      const inner = tf.mul(tf.add(u, tf.mul(tf.pow(u, 3), 0.044715)), Math.sqrt(2 / Math.PI));
      const gelu = tf.mul(tf.mul(u, 0.5), tf.add(tf.tanh(inner), 1)) as tf.Tensor2D;
      x = tf.add(x, tf.add(tf.matMul(gelu, L.wproj), L.bproj)) as tf.Tensor2D;
    }
    return tf.matMul(ln(x, gf, bf), wte, false, true);
  };
  return { forward };
}

async function benchTfjs(c: ModelConfig, batch: number, seq: number, runs: number) {
  await tf.setBackend('wasm');
  await tf.ready();
  const model = tfjsModel(c);
  const optimizer = tf.train.adam(1e-3, 0.9, 0.95, 1e-12);
  const seqs = randomSequences(batch, seq, 7);
  const inputs = tf.tensor2d(
    seqs.map((s) => s.slice(0, -1)),
    [batch, seq],
    'int32',
  );
  const targets = tf.cast(
    tf.oneHot(
      tf.tensor1d(
        seqs.flatMap((s) => s.slice(1)),
        'int32',
      ),
      c.vocab_size,
    ),
    'float32',
  );
  const step = await timeIt(runs, async () => {
    tf.tidy(() => {
      optimizer.minimize(() => tf.losses.softmaxCrossEntropy(targets, model.forward(inputs)) as tf.Scalar);
    });
  });
  // No KV cache here: each new token reruns the whole sequence, as a plain TF.js decoder would.
  const sample = await timeIt(1, async () => {
    const seqsNow = Array.from({ length: SAMPLES }, () => [1, 2, 3, 4]);
    for (let t = 0; t < BASELINE_SAMPLE_TOKENS; t++) {
      const next = tf.tidy(() => {
        const T = seqsNow[0]!.length;
        const logits = tf.reshape(model.forward(tf.tensor2d(seqsNow, [SAMPLES, T], 'int32')), [
          SAMPLES,
          T,
          c.vocab_size,
        ]);
        const last = tf.reshape(tf.slice(logits, [0, T - 1, 0], [SAMPLES, 1, c.vocab_size]), [
          SAMPLES,
          c.vocab_size,
        ]);
        return tf.multinomial(last as tf.Tensor2D, 1, 1).dataSync();
      });
      seqsNow.forEach((s, i) => {
        s.push(next[i]!);
      });
    }
  });
  return { stepMs: median(step), sampleMs: median(sample), tokens: batch * seq };
}

const ours = await benchReference(MODEL, BATCH, SEQ, 7, 2);
const ours1 = await benchReference(MODEL, BATCH, SEQ, 5, 1);
const base = await benchTfjs(MODEL, BATCH, SEQ, 3);
const long = await benchReference({ ...MODEL, n_ctx: 1024 }, 4, 1024, 3, 2);
const tps = (r: { stepMs: number; tokens: number }) => r.tokens / (r.stepMs / 1000);
const sps = (ms: number, tokens: number) => (SAMPLES * tokens) / (ms / 1000);
const result = {
  tokens_per_s_fwd_bwd: Math.round(tps(ours)),
  sample_tokens_per_s: Math.round(sps(ours.sampleMs, SAMPLE_TOKENS)),
  tokens_per_s_fwd_bwd_1_thread: Math.round(tps(ours1)),
  sample_tokens_per_s_1_thread: Math.round(sps(ours1.sampleMs, SAMPLE_TOKENS)),
  baseline_tokens_per_s_fwd_bwd: Math.round(tps(base)),
  baseline_sample_tokens_per_s: Math.round(sps(base.sampleMs, BASELINE_SAMPLE_TOKENS)),
  ratio_fwd_bwd: Number((tps(ours) / tps(base)).toFixed(1)),
  ratio_sample: Number(
    (sps(ours.sampleMs, SAMPLE_TOKENS) / sps(base.sampleMs, BASELINE_SAMPLE_TOKENS)).toFixed(1),
  ),
  tokens_per_s_fwd_bwd_ctx1024: Math.round(tps(long)),
};
const ms = (x: number) => `${x.toFixed(1)} ms`;
console.log(`model ${JSON.stringify(MODEL)}; train step = fwd+bwd+Adam on ${BATCH}×${SEQ} tokens (medians)`);
console.log(
  `reference, 2 threads: step ${ms(ours.stepMs)}; ${SAMPLES}×${SAMPLE_TOKENS} sampled tokens ${ms(ours.sampleMs)}`,
);
console.log(
  `reference, 1 thread:  step ${ms(ours1.stepMs)}; ${SAMPLES}×${SAMPLE_TOKENS} sampled tokens ${ms(ours1.sampleMs)}`,
);
console.log(
  `TF.js wasm baseline:  step ${ms(base.stepMs)}; ${SAMPLES}×${BASELINE_SAMPLE_TOKENS} sampled tokens ${ms(base.sampleMs)}`,
);
console.log(`reference at context 1024, 4×1024 tokens: step ${ms(long.stepMs)}`);
console.log(`ratio to the baseline: fwd+bwd ${result.ratio_fwd_bwd}×, sampling ${result.ratio_sample}×`);
console.log(JSON.stringify(result));
