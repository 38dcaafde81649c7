import type { Transformer } from './transformer.ts';
import { LN_EPS } from './transformer.ts';
import { CAUSAL } from './wasm-runtime.ts';

/**
 * Incremental decoding of `slots` continuations of one prompt with a key/value cache: the prompt is run
 * once (`prefill`), its keys and values copied to every slot, then each `step` feeds one new token per
 * live slot and costs O(position) attention instead of a full forward pass. Lives in the model's scratch
 * memory: valid until the model's next `resetScratch`.
 */
export class KvCacheDecoder {
  private readonly model: Transformer;
  private readonly capacity: number;
  /** Positions allocated per slot: capacity rounded up to the kernels' 4 lanes. */
  private readonly stride: number;
  /** Byte pointers: keys[slot][layer], transposed [d, stride], and values[slot][layer], [capacity, d]. */
  private readonly keys: number[][];
  private readonly values: number[][];
  /** Tokens in the cache (the same for every slot: all slots advance together). */
  length = 0;

  constructor(model: Transformer, slots: number, capacity: number) {
    this.model = model;
    this.capacity = capacity;
    this.stride = (capacity + 3) & ~3;
    const size = this.stride * model.config.d_model;
    const perSlot = () => model.layout.layers.map(() => model.rt.alloc(size));
    this.keys = Array.from({ length: slots }, perSlot);
    this.values = Array.from({ length: slots }, perSlot);
  }

  /** Runs the prompt and returns the logits of its last position (a copy). */
  prefill(prompt: Int32Array): Float32Array {
    const { model } = this;
    const d = model.config.d_model;
    const V = model.config.vocab_size;
    const T = prompt.length;
    const mark = model.rt.mark();
    const acts = model.forward(prompt);
    acts.layers.forEach((la, l) => {
      const qkv = model.rt.f32(la.qkv, T * 3 * d);
      for (let s = 0; s < this.keys.length; s++) {
        model.rt.kernels.transpose(this.keys[s]![l]!, la.qkv + d * 4, T, d, 3 * d, this.stride);
        const vc = model.rt.f32(this.values[s]![l]!, T * d);
        for (let t = 0; t < T; t++) vc.set(qkv.subarray(t * 3 * d + 2 * d, t * 3 * d + 3 * d), t * d);
      }
    });
    const last = model.rt.f32(acts.logits + (T - 1) * V * 4, V).slice();
    model.rt.release(mark);
    this.length = T;
    return last;
  }

  /**
   * Appends `tokens[i]` to slot `slots[i]` at the current position and returns the next-token logits,
   * [slots.length, vocab] (a copy). Slots not listed (finished samples) are left behind.
   */
  step(slots: number[], tokens: number[]): Float32Array {
    const { model } = this;
    const { rt, config: c, layout } = model;
    const k = rt.kernels;
    const d = c.d_model;
    const M = slots.length;
    const pos = this.length;
    if (pos >= this.capacity) throw new RangeError(`KV cache full at ${pos} tokens`);
    const mark = rt.mark();
    const x = rt.alloc(M * d);
    const xs = rt.f32(x, M * d);
    const params = model.paramView();
    tokens.forEach((tok, r) => {
      for (let j = 0; j < d; j++) {
        xs[r * d + j] = params[layout.wte.offset + tok * d + j]! + params[layout.wpe.offset + pos * d + j]!;
      }
    });
    const h = rt.alloc(M * d);
    const stats = rt.alloc(2 * M);
    const qkv = rt.alloc(M * 3 * d);
    const att = rt.alloc(M * d);
    const u = rt.alloc(M * 4 * d);
    const scratch = rt.alloc(this.stride);
    const scale = 1 / Math.sqrt(d / c.n_head);
    layout.layers.forEach((L, l) => {
      k.layerNorm(h, x, model.p(L.ln1_g), model.p(L.ln1_b), stats, stats + M * 4, M, d, LN_EPS);
      k.matmul(qkv, h, model.p(L.w_qkv), model.p(L.b_qkv), M, d, 3 * d, d, 3 * d, 3 * d, 0, CAUSAL.none);
      slots.forEach((s, r) => {
        const row = qkv + r * 3 * d * 4;
        const kT = this.keys[s]![l]!;
        const vc = this.values[s]![l]!;
        k.transpose(kT + pos * 4, row + d * 4, 1, d, 3 * d, this.stride);
        model.copy(vc + pos * d * 4, row + 2 * d * 4, d);
        k.attendCached(att + r * d * 4, row, kT, vc, scratch, pos + 1, this.stride, d, c.n_head, scale);
      });
      k.matmul(x, att, model.p(L.w_o), model.p(L.b_o), M, d, d, d, d, d, 1, CAUSAL.none);
      k.layerNorm(h, x, model.p(L.ln2_g), model.p(L.ln2_b), stats, stats + M * 4, M, d, LN_EPS);
      k.matmul(u, h, model.p(L.w_fc), model.p(L.b_fc), M, d, 4 * d, d, 4 * d, 4 * d, 0, CAUSAL.none);
      k.gelu(u, u, M * 4 * d);
      k.matmul(x, u, model.p(L.w_proj), model.p(L.b_proj), M, 4 * d, d, 4 * d, d, d, 1, CAUSAL.none);
    });
    k.layerNorm(h, x, model.p(layout.lnf_g), model.p(layout.lnf_b), stats, stats + M * 4, M, d, LN_EPS);
    const logits = rt.alloc(M * c.vocab_size);
    k.matmul(logits, h, model.wteT(), 0, M, d, c.vocab_size, d, c.vocab_size, c.vocab_size, 0, CAUSAL.none);
    const out = rt.f32(logits, M * c.vocab_size).slice();
    rt.release(mark);
    this.length = pos + 1;
    return out;
  }
}
