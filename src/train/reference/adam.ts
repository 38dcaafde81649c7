import type { AdamParams } from '../engine.ts';
import { ADAM_DEFAULTS } from '../engine.ts';
import { EngineInputError } from '../errors.ts';

/** Adam's first and second moments, one entry per parameter, and the number of steps taken. */
export interface AdamState {
  m: Float32Array;
  v: Float32Array;
  step: number;
}

export function newAdamState(size: number): AdamState {
  return { m: new Float32Array(size), v: new Float32Array(size), step: 0 };
}

export function resolveAdamParams(p: AdamParams = {}): Required<AdamParams> {
  const r = { ...ADAM_DEFAULTS, ...stripUndefined(p) };
  const bad = (msg: string) => new EngineInputError(`adam_params: ${msg}`);
  if (!(r.learning_rate >= 0)) throw bad(`learning_rate must be ≥ 0, got ${r.learning_rate}`);
  if (!(r.beta1 >= 0 && r.beta1 < 1)) throw bad(`beta1 must be in [0, 1), got ${r.beta1}`);
  if (!(r.beta2 >= 0 && r.beta2 < 1)) throw bad(`beta2 must be in [0, 1), got ${r.beta2}`);
  if (!(r.eps > 0)) throw bad(`eps must be > 0, got ${r.eps}`);
  if (!(r.weight_decay >= 0)) throw bad(`weight_decay must be ≥ 0, got ${r.weight_decay}`);
  if (!(r.grad_clip_norm >= 0)) throw bad(`grad_clip_norm must be ≥ 0 (0 = off), got ${r.grad_clip_norm}`);
  return r;
}

function stripUndefined(p: AdamParams): AdamParams {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined));
}

/** The L2 norm of all gradients together, accumulated in double precision. */
export function globalNorm(grads: Float32Array): number {
  let s = 0;
  for (let i = 0; i < grads.length; i++) s += grads[i]! * grads[i]!;
  return Math.sqrt(s);
}

/**
 * One AdamW step (Loshchilov & Hutter; decoupled weight decay as in torch.optim.AdamW):
 *   g ← g·min(1, clip/‖g‖) when clip > 0
 *   θ ← θ·(1 − lr·λ);  m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²
 *   θ ← θ − lr·m̂/(√v̂ + ε),  m̂ = m/(1−β1ᵗ), v̂ = v/(1−β2ᵗ)
 * Returns the gradient norm before clipping.
 */
export function adamStep(
  params: Float32Array,
  grads: Float32Array,
  state: AdamState,
  hp: Required<AdamParams>,
): number {
  const norm = globalNorm(grads);
  const clip = hp.grad_clip_norm > 0 && norm > hp.grad_clip_norm ? hp.grad_clip_norm / norm : 1;
  state.step += 1;
  const { beta1: b1, beta2: b2, eps, learning_rate: lr } = hp;
  const c1 = 1 - b1 ** state.step;
  const c2 = 1 - b2 ** state.step;
  const decay = 1 - lr * hp.weight_decay;
  const { m, v } = state;
  for (let i = 0; i < params.length; i++) {
    const g = grads[i]! * clip;
    const mi = b1 * m[i]! + (1 - b1) * g;
    const vi = b2 * v[i]! + (1 - b2) * g * g;
    m[i] = mi;
    v[i] = vi;
    params[i] = params[i]! * decay - (lr * (mi / c1)) / (Math.sqrt(vi / c2) + eps);
  }
  return norm;
}
