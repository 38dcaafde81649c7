import type { ModelConfig } from './model-config.ts';

/** Where one tensor lives in the flat parameter vector, in floats. */
export interface TensorSlot {
  name: string;
  shape: number[];
  offset: number;
  size: number;
}

export interface LayerSlots {
  ln1_g: TensorSlot;
  ln1_b: TensorSlot;
  /** [d, 3d]: query, key and value projections side by side. */
  w_qkv: TensorSlot;
  b_qkv: TensorSlot;
  /** [d, d] attention output projection. */
  w_o: TensorSlot;
  b_o: TensorSlot;
  ln2_g: TensorSlot;
  ln2_b: TensorSlot;
  /** [d, 4d] MLP expansion. */
  w_fc: TensorSlot;
  b_fc: TensorSlot;
  /** [4d, d] MLP projection back to the residual stream. */
  w_proj: TensorSlot;
  b_proj: TensorSlot;
}

/**
 * All parameters in one flat Float32 vector, so that gradients, Adam moments, clipping, checkpoints and
 * transfers are single loops or copies. Weights are stored [in, out], so y = x·W.
 */
export interface ParamLayout {
  /** [vocab, d] token embedding, also the output head (logits = h·wteᵀ). */
  wte: TensorSlot;
  /** [n_ctx, d] learned position embedding. */
  wpe: TensorSlot;
  layers: LayerSlots[];
  lnf_g: TensorSlot;
  lnf_b: TensorSlot;
  /** Every slot, in storage order. */
  slots: TensorSlot[];
  size: number;
}

export function paramLayout(c: ModelConfig): ParamLayout {
  const d = c.d_model;
  const slots: TensorSlot[] = [];
  let offset = 0;
  const slot = (name: string, shape: number[]): TensorSlot => {
    const size = shape.reduce((a, b) => a * b, 1);
    const s = { name, shape, offset, size };
    slots.push(s);
    offset += size;
    return s;
  };
  const wte = slot('wte', [c.vocab_size, d]);
  const wpe = slot('wpe', [c.n_ctx, d]);
  const layers: LayerSlots[] = [];
  for (let l = 0; l < c.n_layer; l++) {
    const p = `h.${l}.`;
    layers.push({
      ln1_g: slot(`${p}ln1.g`, [d]),
      ln1_b: slot(`${p}ln1.b`, [d]),
      w_qkv: slot(`${p}attn.w_qkv`, [d, 3 * d]),
      b_qkv: slot(`${p}attn.b_qkv`, [3 * d]),
      w_o: slot(`${p}attn.w_o`, [d, d]),
      b_o: slot(`${p}attn.b_o`, [d]),
      ln2_g: slot(`${p}ln2.g`, [d]),
      ln2_b: slot(`${p}ln2.b`, [d]),
      w_fc: slot(`${p}mlp.w_fc`, [d, 4 * d]),
      b_fc: slot(`${p}mlp.b_fc`, [4 * d]),
      w_proj: slot(`${p}mlp.w_proj`, [4 * d, d]),
      b_proj: slot(`${p}mlp.b_proj`, [d]),
    });
  }
  const lnf_g = slot('lnf.g', [d]);
  const lnf_b = slot('lnf.b', [d]);
  return { wte, wpe, layers, lnf_g, lnf_b, slots, size: offset };
}
