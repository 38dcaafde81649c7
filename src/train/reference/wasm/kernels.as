// Float32 compute kernels of the reference transformer, in AssemblyScript with 128-bit SIMD.
//
// Compiled by build-kernels.ts, with matmul.as, into kernels.wasm.gen.ts; these files keep a non-.ts
// extension so that tsc and biome, which check the Node sources, leave them alone. All pointers are byte
// offsets into the imported memory; matrices are row-major with explicit leading dimensions (elements per row), so a
// head's slice of a [T, 3·d] qkv matrix can be used in place. Every N that reaches a SIMD loop must be
// a multiple of 4 (the model config enforces d, head size and vocabulary size accordingly).
//
// Causal attention works on 4-row blocks: row i belongs to the block starting at i & ~3, and every
// kernel agrees that the block may touch columns j < min(T, (i & ~3) + 4). The scores kernel computes
// exactly those, the softmax writes zeros between the diagonal and that limit, and the products with
// P or dS read nothing beyond it — so no kernel ever reads an unwritten entry.

import { blockLimit } from './matmul';

export { colSumInto, matmul, matmulTN, transpose } from './matmul';

/** y = (x − mean)·rstd·g + b per row; keeps mean and rstd per row for the backward pass. */
export function layerNorm(
  y: usize, x: usize, g: usize, b: usize, mean: usize, rstd: usize, M: i32, D: i32, eps: f32,
): void {
  for (let i = 0; i < M; i++) {
    const xp = x + (<usize>i * <usize>D << 2);
    const yp = y + (<usize>i * <usize>D << 2);
    let s: f32 = 0;
    for (let j = 0; j < D; j++) s += load<f32>(xp + (<usize>j << 2));
    const mu = s / <f32>D;
    let v: f32 = 0;
    for (let j = 0; j < D; j++) {
      const d = load<f32>(xp + (<usize>j << 2)) - mu;
      v += d * d;
    }
    const r = <f32>1 / Mathf.sqrt(v / <f32>D + eps);
    for (let j = 0; j < D; j++) {
      const o = <usize>j << 2;
      store<f32>(yp + o, (load<f32>(xp + o) - mu) * r * load<f32>(g + o) + load<f32>(b + o));
    }
    store<f32>(mean + (<usize>i << 2), mu);
    store<f32>(rstd + (<usize>i << 2), r);
  }
}

/**
 * Backward of layerNorm: dx += g·rstd·(dy − mean(dy·g) − x̂·mean(dy·g·x̂)), dg += Σ dy·x̂, db += Σ dy.
 * dx accumulates because it is the residual stream's gradient.
 */
export function layerNormBackward(
  dx: usize, dg: usize, db: usize, dy: usize, x: usize, g: usize, mean: usize, rstd: usize, M: i32, D: i32,
): void {
  for (let i = 0; i < M; i++) {
    const row = <usize>i * <usize>D << 2;
    const mu = load<f32>(mean + (<usize>i << 2));
    const r = load<f32>(rstd + (<usize>i << 2));
    let s1: f32 = 0;
    let s2: f32 = 0;
    for (let j = 0; j < D; j++) {
      const o = <usize>j << 2;
      const xh = (load<f32>(x + row + o) - mu) * r;
      const dyg = load<f32>(dy + row + o) * load<f32>(g + o);
      s1 += dyg;
      s2 += dyg * xh;
    }
    s1 /= <f32>D;
    s2 /= <f32>D;
    for (let j = 0; j < D; j++) {
      const o = <usize>j << 2;
      const xh = (load<f32>(x + row + o) - mu) * r;
      const d = load<f32>(dy + row + o);
      store<f32>(dg + o, load<f32>(dg + o) + d * xh);
      store<f32>(db + o, load<f32>(db + o) + d);
      store<f32>(dx + row + o, load<f32>(dx + row + o) + r * (d * load<f32>(g + o) - s1 - xh * s2));
    }
  }
}

// GELU, tanh approximation (GPT-2): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
const GELU_C: f32 = 0.7978845608028654;

export function gelu(y: usize, x: usize, n: i32): void {
  for (let i = 0; i < n; i++) {
    const o = <usize>i << 2;
    const v = load<f32>(x + o);
    store<f32>(y + o, <f32>0.5 * v * (<f32>1 + Mathf.tanh(GELU_C * (v + <f32>0.044715 * v * v * v))));
  }
}

/** dx = dy·gelu'(x). */
export function geluBackward(dx: usize, dy: usize, x: usize, n: i32): void {
  for (let i = 0; i < n; i++) {
    const o = <usize>i << 2;
    const v = load<f32>(x + o);
    const t = Mathf.tanh(GELU_C * (v + <f32>0.044715 * v * v * v));
    const dt = (<f32>1 - t * t) * GELU_C * (<f32>1 + <f32>0.134145 * v * v);
    store<f32>(dx + o, load<f32>(dy + o) * (<f32>0.5 * (<f32>1 + t) + <f32>0.5 * v * dt));
  }
}

/** P[i, j≤i] = softmax_j(scale·S[i, j]); zeros from the diagonal to the block limit. In place is fine. */
export function causalSoftmax(p: usize, s: usize, T: i32, ld: i32, scale: f32): void {
  for (let i = 0; i < T; i++) {
    const sp = s + (<usize>i * <usize>ld << 2);
    const pp = p + (<usize>i * <usize>ld << 2);
    let mx: f32 = -Infinity;
    for (let j = 0; j <= i; j++) mx = max(mx, load<f32>(sp + (<usize>j << 2)));
    let z: f32 = 0;
    for (let j = 0; j <= i; j++) {
      const e = Mathf.exp(scale * (load<f32>(sp + (<usize>j << 2)) - mx));
      store<f32>(pp + (<usize>j << 2), e);
      z += e;
    }
    const inv = <f32>1 / z;
    for (let j = 0; j <= i; j++) store<f32>(pp + (<usize>j << 2), load<f32>(pp + (<usize>j << 2)) * inv);
    const lim = blockLimit(i, T);
    for (let j = i + 1; j < lim; j++) store<f32>(pp + (<usize>j << 2), 0);
  }
}

/** dS[i, j] = scale·P[i, j]·(dP[i, j] − Σ_k P[i, k]·dP[i, k]) up to the block limit. In place on dP. */
export function causalSoftmaxBackward(ds: usize, p: usize, dp: usize, T: i32, ld: i32, scale: f32): void {
  for (let i = 0; i < T; i++) {
    const row = <usize>i * <usize>ld << 2;
    let dot: f32 = 0;
    for (let j = 0; j <= i; j++) {
      const o = row + (<usize>j << 2);
      dot += load<f32>(p + o) * load<f32>(dp + o);
    }
    const lim = blockLimit(i, T);
    for (let j = 0; j < lim; j++) {
      const o = row + (<usize>j << 2);
      store<f32>(ds + o, scale * load<f32>(p + o) * (load<f32>(dp + o) - dot));
    }
  }
}

/**
 * Per row of logits [M, V]: lse[i] = log Σ_v exp(logits[i, v]) and, when targets != 0,
 * logprob[i] = logits[i, targets[i]] − lse[i] (targets are i32).
 */
export function logSoftmaxPick(lse: usize, logprob: usize, logits: usize, targets: usize, M: i32, V: i32): void {
  for (let i = 0; i < M; i++) {
    const lp = logits + (<usize>i * <usize>V << 2);
    let mx: f32 = -Infinity;
    for (let v = 0; v < V; v++) mx = max(mx, load<f32>(lp + (<usize>v << 2)));
    let z: f32 = 0;
    for (let v = 0; v < V; v++) z += Mathf.exp(load<f32>(lp + (<usize>v << 2)) - mx);
    const l = mx + Mathf.log(z);
    store<f32>(lse + (<usize>i << 2), l);
    if (targets) {
      const t = load<i32>(targets + (<usize>i << 2));
      store<f32>(logprob + (<usize>i << 2), load<f32>(lp + (<usize>t << 2)) - l);
    }
  }
}

/**
 * Gradient of Σ_i L_i(logprob_i) with respect to the logits, given g[i] = dL_i/dlogprob_i:
 * dlogits[i, v] = g[i]·(1[v = target_i] − softmax(logits[i])_v). Written over logits in place.
 */
export function logprobBackward(logits: usize, lse: usize, targets: usize, g: usize, M: i32, V: i32): void {
  for (let i = 0; i < M; i++) {
    const lp = logits + (<usize>i * <usize>V << 2);
    const gi = load<f32>(g + (<usize>i << 2));
    const l = load<f32>(lse + (<usize>i << 2));
    for (let v = 0; v < V; v++) {
      const o = <usize>v << 2;
      store<f32>(lp + o, -gi * Mathf.exp(load<f32>(lp + o) - l));
    }
    const t = <usize>load<i32>(targets + (<usize>i << 2)) << 2;
    store<f32>(lp + t, load<f32>(lp + t) + gi);
  }
}

/**
 * One new token's attention over a KV cache: for each head h, out_h = Σ_{j<len} softmax_j(scale·q_h·k_j)·v_j.
 * q and out are [D] (heads side by side); keys are stored transposed, kT [D, cap], so that scores for four
 * positions come from one SIMD product per dimension; values are vc [len, D]. cap is a multiple of 4 and
 * scratch holds cap floats.
 */
export function attendCached(
  out: usize, q: usize, kT: usize, vc: usize, scratch: usize, len: i32, cap: i32, D: i32, H: i32, scale: f32,
): void {
  const dh = D / H;
  const rs = <usize>D << 2;
  const ks = <usize>cap << 2;
  for (let h = 0; h < H; h++) {
    const ho = <usize>(h * dh) << 2;
    for (let j = 0; j < len; j += 4) {
      let acc = f32x4.splat(0);
      let kp = kT + <usize>(h * dh) * ks + (<usize>j << 2);
      for (let d = 0; d < dh; d++) {
        acc = f32x4.add(acc, f32x4.mul(v128.load32_splat(q + ho + (<usize>d << 2)), v128.load(kp)));
        kp += ks;
      }
      v128.store(scratch + (<usize>j << 2), f32x4.mul(acc, f32x4.splat(scale)));
    }
    let mx: f32 = -Infinity;
    for (let j = 0; j < len; j++) mx = max(mx, load<f32>(scratch + (<usize>j << 2)));
    let z: f32 = 0;
    for (let j = 0; j < len; j++) {
      const e = Mathf.exp(load<f32>(scratch + (<usize>j << 2)) - mx);
      store<f32>(scratch + (<usize>j << 2), e);
      z += e;
    }
    const inv = <f32>1 / z;
    for (let j = 0; j < len; j++) store<f32>(scratch + (<usize>j << 2), load<f32>(scratch + (<usize>j << 2)) * inv);
    // Sixteen dimensions (four accumulators) per pass over the positions.
    for (let d = 0; d < dh; d += 16) {
      const n = dh - d < 16 ? dh - d : 16;
      let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
      let vp = vc + ho + (<usize>d << 2);
      for (let j = 0; j < len; j++) {
        const w = v128.load32_splat(scratch + (<usize>j << 2));
        a0 = f32x4.add(a0, f32x4.mul(w, v128.load(vp)));
        if (n > 4) a1 = f32x4.add(a1, f32x4.mul(w, v128.load(vp, 16)));
        if (n > 8) a2 = f32x4.add(a2, f32x4.mul(w, v128.load(vp, 32)));
        if (n > 12) a3 = f32x4.add(a3, f32x4.mul(w, v128.load(vp, 48)));
        vp += rs;
      }
      const op = out + ho + (<usize>d << 2);
      v128.store(op, a0);
      if (n > 4) v128.store(op, a1, 16);
      if (n > 8) v128.store(op, a2, 32);
      if (n > 12) v128.store(op, a3, 48);
    }
  }
}

/** First byte after the module's static data (the math functions' tables): the host allocates above it. */
export function heapBase(): usize {
  return __heap_base;
}
