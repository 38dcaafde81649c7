import type { ModelConfig } from './model-config.ts';
import { type ParamLayout, paramLayout, type TensorSlot } from './param-layout.ts';
import { CAUSAL, WasmRuntime } from './wasm-runtime.ts';

export const LN_EPS = 1e-5;

/** Activations of one layer for one sequence, kept for the backward pass (byte pointers). */
export interface LayerActivations {
  /** The residual stream entering the layer, [T, d]. */
  resid: number;
  h1: number;
  mean1: number;
  rstd1: number;
  /** [T, 3d]: q, k, v side by side, heads contiguous within each. */
  qkv: number;
  /** [H, T, T4]: causal attention probabilities per head. */
  probs: number;
  /** [T, d]: the heads' outputs, before the output projection. */
  att: number;
  /** The residual stream after attention, [T, d]. */
  mid: number;
  h2: number;
  mean2: number;
  rstd2: number;
  /** [T, 4d] MLP pre-activation and its GELU. */
  u: number;
  a: number;
}

export interface SequenceActivations {
  T: number;
  /** T rounded up to a multiple of 4: the row stride of attention matrices. */
  T4: number;
  tokens: number;
  targets: number;
  layers: LayerActivations[];
  /** The residual stream after the last layer, [T, d]. */
  out: number;
  hf: number;
  meanf: number;
  rstdf: number;
  /** [T, vocab]. */
  logits: number;
  lse: number;
  logprobs: number;
}

/**
 * The reference transformer's weights and gradients in one wasm runtime, and its forward pass over one
 * sequence. Sequences are processed one at a time: a full-length sequence already gives the kernels
 * matrices of hundreds of rows, and memory stays bounded by one sequence's activations.
 */
export class Transformer {
  readonly config: ModelConfig;
  readonly layout: ParamLayout;
  readonly rt: WasmRuntime;
  /** Byte pointers of the flat parameter and gradient vectors. */
  readonly params: number;
  readonly grads: number;
  /** Weights transposed for the products with Wᵀ, refreshed by `syncWeights` after every update. */
  private readonly transposed: {
    wte: number;
    layers: { w_qkv: number; w_o: number; w_fc: number; w_proj: number }[];
  };
  /** Where per-call scratch memory starts. */
  private readonly base: number;

  constructor(config: ModelConfig, rt = new WasmRuntime()) {
    this.config = config;
    this.layout = paramLayout(config);
    this.rt = rt;
    this.params = rt.alloc(this.layout.size);
    this.grads = rt.alloc(this.layout.size);
    const d = config.d_model;
    this.transposed = {
      wte: rt.alloc(config.vocab_size * d),
      layers: this.layout.layers.map(() => ({
        w_qkv: rt.alloc(3 * d * d),
        w_o: rt.alloc(d * d),
        w_fc: rt.alloc(4 * d * d),
        w_proj: rt.alloc(4 * d * d),
      })),
    };
    this.base = rt.mark();
  }

  paramView(): Float32Array {
    return this.rt.f32(this.params, this.layout.size);
  }

  gradView(): Float32Array {
    return this.rt.f32(this.grads, this.layout.size);
  }

  /** Byte pointer of a parameter tensor (or of its gradient). */
  p(slot: TensorSlot, of: 'params' | 'grads' = 'params'): number {
    return (of === 'params' ? this.params : this.grads) + slot.offset * 4;
  }

  wteT(): number {
    return this.transposed.wte;
  }

  transposedLayer(l: number) {
    return this.transposed.layers[l]!;
  }

  /** Must follow every change of the parameters (optimizer step, load, init). */
  syncWeights(): void {
    const { kernels: k } = this.rt;
    const d = this.config.d_model;
    k.transpose(
      this.transposed.wte,
      this.p(this.layout.wte),
      this.config.vocab_size,
      d,
      d,
      this.config.vocab_size,
    );
    this.layout.layers.forEach((L, l) => {
      const t = this.transposed.layers[l]!;
      k.transpose(t.w_qkv, this.p(L.w_qkv), d, 3 * d, 3 * d, d);
      k.transpose(t.w_o, this.p(L.w_o), d, d, d, d);
      k.transpose(t.w_fc, this.p(L.w_fc), d, 4 * d, 4 * d, d);
      k.transpose(t.w_proj, this.p(L.w_proj), 4 * d, d, d, 4 * d);
    });
  }

  /** Drops all per-call scratch (activations of earlier sequences). */
  resetScratch(): void {
    this.rt.release(this.base);
  }

  /**
   * Runs the model over `tokens` and, when `targets` is given, the logprob of each target token.
   * Allocates the activations in scratch memory; they stay valid until `resetScratch`.
   */
  forward(tokens: Int32Array, targets?: Int32Array): SequenceActivations {
    const { rt, config: c } = this;
    const T = tokens.length;
    const T4 = (T + 3) & ~3;
    const d = c.d_model;
    const acts: SequenceActivations = {
      T,
      T4,
      tokens: rt.alloc(T),
      targets: rt.alloc(T),
      layers: [],
      out: 0,
      hf: 0,
      meanf: 0,
      rstdf: 0,
      logits: 0,
      lse: 0,
      logprobs: 0,
    };
    rt.i32(acts.tokens, T).set(tokens);
    if (targets) rt.i32(acts.targets, T).set(targets);
    let x = this.embed(tokens);
    for (let l = 0; l < c.n_layer; l++) {
      const la = this.layerForward(l, x, T, T4);
      acts.layers.push(la);
      x = la.next;
    }
    acts.out = x;
    acts.hf = rt.alloc(T * d);
    acts.meanf = rt.alloc(T);
    acts.rstdf = rt.alloc(T);
    rt.kernels.layerNorm(
      acts.hf,
      x,
      this.p(this.layout.lnf_g),
      this.p(this.layout.lnf_b),
      acts.meanf,
      acts.rstdf,
      T,
      d,
      LN_EPS,
    );
    acts.logits = rt.alloc(T * c.vocab_size);
    acts.lse = rt.alloc(T);
    acts.logprobs = rt.alloc(T);
    rt.kernels.matmul(
      acts.logits,
      acts.hf,
      this.wteT(),
      0,
      T,
      d,
      c.vocab_size,
      d,
      c.vocab_size,
      c.vocab_size,
      0,
      CAUSAL.none,
    );
    rt.kernels.logSoftmaxPick(
      acts.lse,
      acts.logprobs,
      acts.logits,
      targets ? acts.targets : 0,
      T,
      c.vocab_size,
    );
    return acts;
  }

  /** x[t] = wte[token_t] + wpe[t]. */
  private embed(tokens: Int32Array): number {
    const d = this.config.d_model;
    const x = this.rt.alloc(tokens.length * d);
    const xs = this.rt.f32(x, tokens.length * d);
    const params = this.paramView();
    const { wte, wpe } = this.layout;
    for (let t = 0; t < tokens.length; t++) {
      const e = wte.offset + tokens[t]! * d;
      const p = wpe.offset + t * d;
      for (let j = 0; j < d; j++) xs[t * d + j] = params[e + j]! + params[p + j]!;
    }
    return x;
  }

  private layerForward(l: number, resid: number, T: number, T4: number): LayerActivations & { next: number } {
    const { rt, config: c } = this;
    const k = rt.kernels;
    const L = this.layout.layers[l]!;
    const d = c.d_model;
    const H = c.n_head;
    const dh = d / H;
    const a = {
      resid,
      h1: rt.alloc(T * d),
      mean1: rt.alloc(T),
      rstd1: rt.alloc(T),
      qkv: rt.alloc(T * 3 * d),
      probs: rt.alloc(H * T * T4),
      att: rt.alloc(T * d),
      mid: rt.alloc(T * d),
      h2: rt.alloc(T * d),
      mean2: rt.alloc(T),
      rstd2: rt.alloc(T),
      u: rt.alloc(T * 4 * d),
      a: rt.alloc(T * 4 * d),
      next: rt.alloc(T * d),
    };
    k.layerNorm(a.h1, resid, this.p(L.ln1_g), this.p(L.ln1_b), a.mean1, a.rstd1, T, d, LN_EPS);
    k.matmul(a.qkv, a.h1, this.p(L.w_qkv), this.p(L.b_qkv), T, d, 3 * d, d, 3 * d, 3 * d, 0, CAUSAL.none);
    const mark = rt.mark();
    const kT = rt.alloc(dh * T4);
    const scale = 1 / Math.sqrt(dh);
    for (let h = 0; h < H; h++) {
      const q = a.qkv + h * dh * 4;
      const key = a.qkv + (d + h * dh) * 4;
      const v = a.qkv + (2 * d + h * dh) * 4;
      const P = a.probs + h * T * T4 * 4;
      k.transpose(kT, key, T, dh, 3 * d, T4);
      k.matmul(P, q, kT, 0, T, dh, T4, 3 * d, T4, T4, 0, CAUSAL.columns);
      k.causalSoftmax(P, P, T, T4, scale);
      k.matmul(a.att + h * dh * 4, P, v, 0, T, T, dh, T4, 3 * d, d, 0, CAUSAL.inner);
    }
    rt.release(mark);
    this.copy(a.mid, resid, T * d);
    k.matmul(a.mid, a.att, this.p(L.w_o), this.p(L.b_o), T, d, d, d, d, d, 1, CAUSAL.none);
    k.layerNorm(a.h2, a.mid, this.p(L.ln2_g), this.p(L.ln2_b), a.mean2, a.rstd2, T, d, LN_EPS);
    k.matmul(a.u, a.h2, this.p(L.w_fc), this.p(L.b_fc), T, d, 4 * d, d, 4 * d, 4 * d, 0, CAUSAL.none);
    k.gelu(a.a, a.u, T * 4 * d);
    this.copy(a.next, a.mid, T * d);
    k.matmul(a.next, a.a, this.p(L.w_proj), this.p(L.b_proj), T, 4 * d, d, 4 * d, d, d, 1, CAUSAL.none);
    return a;
  }

  copy(dst: number, src: number, floats: number): void {
    this.rt.f32(dst, floats).set(this.rt.f32(src, floats));
  }
}
