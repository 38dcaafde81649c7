import type { SequenceActivations, Transformer } from './transformer.ts';
import { CAUSAL } from './wasm-runtime.ts';

/**
 * Back-propagates dLoss/dlogprob of each target token (`dLogprob_T`) through the model for one sequence,
 * adding the parameter gradients into `model.grads`. With p_t = logits[t, target_t] − logsumexp(logits[t]),
 * dL/dlogits[t] = g_t·(onehot(target_t) − softmax(logits[t])); the rest is the chain rule, layer by layer.
 */
export function backwardSequence(
  model: Transformer,
  acts: SequenceActivations,
  dLogprob_T: ArrayLike<number>,
): void {
  const { rt, config: c, layout } = model;
  const k = rt.kernels;
  const { T } = acts;
  const d = c.d_model;
  const V = c.vocab_size;
  const g = rt.alloc(T);
  rt.f32(g, T).set(Float32Array.from(dLogprob_T));
  // The logits buffer becomes dlogits.
  k.logprobBackward(acts.logits, acts.lse, acts.targets, g, T, V);
  const dlogits = acts.logits;
  const dh = rt.alloc(T * d);
  k.matmul(dh, dlogits, model.p(layout.wte), 0, T, V, d, V, d, d, 0, CAUSAL.none);
  k.matmulTN(model.p(layout.wte, 'grads'), dlogits, acts.hf, T, V, d, V, d, d, 0);
  const dx = rt.alloc(T * d);
  k.layerNormBackward(
    dx,
    model.p(layout.lnf_g, 'grads'),
    model.p(layout.lnf_b, 'grads'),
    dh,
    acts.out,
    model.p(layout.lnf_g),
    acts.meanf,
    acts.rstdf,
    T,
    d,
  );
  for (let l = c.n_layer - 1; l >= 0; l--) layerBackward(model, acts, l, dx, dh);
  embedBackward(model, acts, dx);
}

/** dx holds dL/d(layer output) on entry and dL/d(layer input) on return; dh is [T, d] scratch. */
function layerBackward(
  model: Transformer,
  acts: SequenceActivations,
  l: number,
  dx: number,
  dh: number,
): void {
  const { rt, config: c } = model;
  const k = rt.kernels;
  const L = model.layout.layers[l]!;
  const la = acts.layers[l]!;
  const wT = model.transposedLayer(l);
  const { T, T4 } = acts;
  const d = c.d_model;
  const mark = rt.mark();
  const grad = (s: typeof L.w_o) => model.p(s, 'grads');

  // MLP: next = mid + gelu(h2·W_fc + b_fc)·W_proj + b_proj
  k.colSumInto(grad(L.b_proj), dx, T, d, d);
  k.matmulTN(grad(L.w_proj), la.a, dx, T, 4 * d, d, 4 * d, d, d, 0);
  const du = rt.alloc(T * 4 * d);
  k.matmul(du, dx, wT.w_proj, 0, T, d, 4 * d, d, 4 * d, 4 * d, 0, CAUSAL.none);
  k.geluBackward(du, du, la.u, T * 4 * d);
  k.colSumInto(grad(L.b_fc), du, T, 4 * d, 4 * d);
  k.matmulTN(grad(L.w_fc), la.h2, du, T, d, 4 * d, d, 4 * d, 4 * d, 0);
  k.matmul(dh, du, wT.w_fc, 0, T, 4 * d, d, 4 * d, d, d, 0, CAUSAL.none);
  k.layerNormBackward(
    dx,
    grad(L.ln2_g),
    grad(L.ln2_b),
    dh,
    la.mid,
    model.p(L.ln2_g),
    la.mean2,
    la.rstd2,
    T,
    d,
  );

  // Attention: mid = resid + att·W_o + b_o
  k.colSumInto(grad(L.b_o), dx, T, d, d);
  k.matmulTN(grad(L.w_o), la.att, dx, T, d, d, d, d, d, 0);
  const datt = rt.alloc(T * d);
  k.matmul(datt, dx, wT.w_o, 0, T, d, d, d, d, d, 0, CAUSAL.none);
  const dqkv = rt.alloc(T * 3 * d);
  attentionBackward(model, la, datt, dqkv, T, T4);
  k.colSumInto(grad(L.b_qkv), dqkv, T, 3 * d, 3 * d);
  k.matmulTN(grad(L.w_qkv), la.h1, dqkv, T, d, 3 * d, d, 3 * d, 3 * d, 0);
  k.matmul(dh, dqkv, wT.w_qkv, 0, T, 3 * d, d, 3 * d, d, d, 0, CAUSAL.none);
  k.layerNormBackward(
    dx,
    grad(L.ln1_g),
    grad(L.ln1_b),
    dh,
    la.resid,
    model.p(L.ln1_g),
    la.mean1,
    la.rstd1,
    T,
    d,
  );
  rt.release(mark);
}

/**
 * Per head, with S = Q·Kᵀ, P = softmax(S/√dh) (causal) and O = P·V:
 * dP = dO·Vᵀ, dV = Pᵀ·dO, dS = P ⊙ (dP − rowsum(P ⊙ dP))/√dh, dQ = dS·K, dK = dSᵀ·Q.
 * dqkv must be zero on entry (dK and dV accumulate).
 */
function attentionBackward(
  model: Transformer,
  la: { qkv: number; probs: number },
  datt: number,
  dqkv: number,
  T: number,
  T4: number,
): void {
  const { rt, config: c } = model;
  const k = rt.kernels;
  const d = c.d_model;
  const H = c.n_head;
  const dh = d / H;
  const scale = 1 / Math.sqrt(dh);
  const vT = rt.alloc(dh * T4);
  const dP = rt.alloc(T * T4);
  for (let h = 0; h < H; h++) {
    const qOff = h * dh * 4;
    const kOff = (d + h * dh) * 4;
    const vOff = (2 * d + h * dh) * 4;
    const P = la.probs + h * T * T4 * 4;
    const dO = datt + h * dh * 4;
    k.transpose(vT, la.qkv + vOff, T, dh, 3 * d, T4);
    k.matmul(dP, dO, vT, 0, T, dh, T4, d, T4, T4, 0, CAUSAL.columns);
    k.matmulTN(dqkv + vOff, P, dO, T, T, dh, T4, d, 3 * d, 1);
    k.causalSoftmaxBackward(dP, P, dP, T, T4, scale);
    k.matmul(dqkv + qOff, dP, la.qkv + kOff, 0, T, T, dh, T4, 3 * d, 3 * d, 0, CAUSAL.inner);
    k.matmulTN(dqkv + kOff, dP, la.qkv + qOff, T, T, dh, T4, 3 * d, 3 * d, 1);
  }
}

/** dwte[token_t] += dx[t], dwpe[t] += dx[t]. */
function embedBackward(model: Transformer, acts: SequenceActivations, dx: number): void {
  const { T } = acts;
  const d = model.config.d_model;
  const grads = model.gradView();
  const dxs = model.rt.f32(dx, T * d);
  const tokens = model.rt.i32(acts.tokens, T);
  const { wte, wpe } = model.layout;
  for (let t = 0; t < T; t++) {
    const e = wte.offset + tokens[t]! * d;
    const p = wpe.offset + t * d;
    for (let j = 0; j < d; j++) {
      grads[e + j] = grads[e + j]! + dxs[t * d + j]!;
      grads[p + j] = grads[p + j]! + dxs[t * d + j]!;
    }
  }
}
