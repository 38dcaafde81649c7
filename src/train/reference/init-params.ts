import type { ParamLayout, TensorSlot } from './param-layout.ts';
import type { Rng } from './rng.ts';

/**
 * GPT-2's initialization: weights N(0, 0.02), position embedding N(0, 0.01), the two projections into the
 * residual stream scaled by 1/√(2·n_layer) so the stream's variance does not grow with depth, LayerNorm
 * gains 1, biases 0. Draws in storage order, so a seed fixes every weight.
 */
export function initParams(layout: ParamLayout, params: Float32Array, rng: Rng): void {
  const residualStd = 0.02 / Math.sqrt(2 * layout.layers.length);
  const normal = (s: TensorSlot, std: number) => {
    for (let i = 0; i < s.size; i++) params[s.offset + i] = std * rng.normal();
  };
  const fill = (s: TensorSlot, v: number) => params.fill(v, s.offset, s.offset + s.size);
  for (const s of layout.slots) {
    if (s.name.endsWith('.g')) fill(s, 1);
    else if (s.shape.length === 1) fill(s, 0);
    else if (s.name === 'wpe') normal(s, 0.01);
    else if (s.name.endsWith('w_o') || s.name.endsWith('w_proj')) normal(s, residualStd);
    else normal(s, 0.02);
  }
}
